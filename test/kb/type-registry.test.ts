import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { resolveKbPath, TypeRegistry } from '../../src/kb/type-registry.js';
import { validateFile } from '../../src/kb/validate.js';
import { makeTemp, removeTemps } from './helpers.js';

let root: string;

async function put(file: string, text: string): Promise<void> {
  await mkdir(path.dirname(path.join(root, file)), { recursive: true });
  await writeFile(path.join(root, file), text);
}

const spec = (name: string, schema: string) => `---\ntype: kb/types/type-spec.md\nname: ${name}\ndescription: test type ${name}\n${schema}\n---\n\n# ${name}\n`;
const noteOf = (type: string, fields = '') => `---\ntype: ${type}\ndescription: a test note\n${fields}---\n\n# Test\n`;

beforeAll(async () => {
  root = await makeTemp('commonplace-types-');
  await put('kb/types/type-spec.md', spec('type-spec', 'schema: null'));
  await put('kb/types/nested.md', spec('nested', 'schema: kb/types/nested.schema.yaml'));
  await put(
    'kb/types/nested.schema.yaml',
    [
      'allOf:',
      '  - severity: warn',
      '    description: soft frontmatter rules',
      '    properties:',
      '      frontmatter:',
      '        properties:',
      '          a: { type: string }',
      '          b:',
      '            severity: fail',
      '            type: string',
      '  - severity: warn',
      '    $ref: ./strict.schema.yaml',
    ].join('\n'),
  );
  await put('kb/types/strict.schema.yaml', 'properties:\n  frontmatter:\n    required: [c]\n');
  await put('kb/types/typo.md', spec('typo', 'schema: ./typo.schema.yaml'));
  await put('kb/types/typo.schema.yaml', 'properties:\n  frontmatter:\n    requierd: [a]\n');
  await put('kb/types/bad-severity.md', spec('bad-severity', 'schema: ./bad-severity.schema.yaml'));
  await put('kb/types/bad-severity.schema.yaml', 'properties:\n  frontmatter:\n    severity: error\n');
  await put('kb/types/remote.md', spec('remote', 'schema: ./remote.schema.yaml'));
  await put('kb/types/remote.schema.yaml', '$ref: https://example.com/note.schema.json\n');
  await put('kb/types/no-schema-field.md', '---\ntype: kb/types/type-spec.md\nname: x\ndescription: y\n---\n# X\n');
  await put('kb/types/schemaless.md', spec('schemaless', 'schema: null'));
  await put('kb/notes/types/local.md', spec('local', 'schema: ./local.schema.yaml'));
  await put('kb/notes/types/local.schema.yaml', 'properties:\n  frontmatter:\n    properties:\n      type: { const: kb/notes/types/local.md }\n');
});
afterAll(removeTemps);

async function check(type: string, fields = '') {
  const file = `kb/notes/n-${Math.random().toString(36).slice(2)}.md`;
  await put(file, noteOf(type, fields));
  return validateFile(file, { repoRoot: root, registry: new TypeRegistry(root) });
}

describe('severity and messages', () => {
  test('a warned subschema warns with its description; a nested `severity: fail` fails again', async () => {
    const result = await check('kb/types/nested.md', 'a: 1\nb: 2\nc: here\n');
    expect(result.findings.map(({ path: at, severity, message }) => ({ at, severity, message }))).toEqual([
      { at: '/frontmatter/a', severity: 'warn', message: 'soft frontmatter rules (frontmatter `a` must be string, found integer)' },
      { at: '/frontmatter/b', severity: 'fail', message: 'frontmatter `b` must be string, found integer' },
    ]);
  });

  test('severity does not travel through a $ref: the referenced rule keeps its own', async () => {
    const result = await check('kb/types/nested.md');
    expect(result.findings).toEqual([
      expect.objectContaining({
        rule: 'schema/required',
        path: '/frontmatter/c',
        severity: 'fail',
        schema: 'kb/types/strict.schema.yaml#/properties/frontmatter/required',
      }),
    ]);
  });
});

describe('types that cannot validate are explicit errors', () => {
  test.each([
    {
      name: 'an unknown keyword in strict mode',
      type: 'kb/types/typo.md',
      rule: 'schema-unavailable',
      message: /does not compile: strict mode: unknown keyword: "requierd"/,
    },
    {
      name: 'a severity other than warn or fail',
      type: 'kb/types/bad-severity.md',
      rule: 'schema-unavailable',
      message: /does not compile: keyword "severity" value is invalid/,
    },
    { name: 'a remote $ref', type: 'kb/types/remote.md', rule: 'schema-unavailable', message: /\$ref `https:\/\/example\.com\/note\.schema\.json` is remote/ },
    { name: 'a type spec without a schema field', type: 'kb/types/no-schema-field.md', rule: 'type-spec-invalid', message: /has no `schema:` field/ },
    { name: 'a URL as type', type: 'https://example.com/note.md', rule: 'type-invalid', message: /is a URL/ },
    { name: 'a type outside the repository', type: '../../../outside.md', rule: 'type-invalid', message: /resolves outside the repository/ },
  ])('$name', async ({ type, rule, message }) => {
    const result = await check(type);
    expect(result.findings).toEqual([expect.objectContaining({ rule, severity: 'fail', message: expect.stringMatching(message) })]);
  });

  test('a note with frontmatter but no type fails', async () => {
    await put('kb/notes/untyped.md', '---\ndescription: no type here\n---\n# X\n');
    const result = await validateFile('kb/notes/untyped.md', { repoRoot: root, registry: new TypeRegistry(root) });
    expect(result.findings).toEqual([expect.objectContaining({ rule: 'type-missing', line: 1 })]);
  });
});

describe('type resolution', () => {
  test('`schema: null` is a type with nothing more to check', async () => {
    const result = await check('kb/types/schemaless.md', 'anything: goes\n');
    expect(result).toMatchObject({ kind: 'note', type: 'kb/types/schemaless.md', findings: [] });
  });

  test('a relative type resolves from the note folder and the schema sees its canonical path', async () => {
    const result = await check('./types/local.md');
    expect(result).toMatchObject({ kind: 'note', type: 'kb/notes/types/local.md', findings: [] });
  });

  test('resolveKbPath follows the KB rule: ./ and ../ from the file, anything else from the root', () => {
    expect(resolveKbPath('./types/x.md', 'kb/notes/a.md', '/r')).toEqual({ ok: true, path: 'kb/notes/types/x.md', absolute: '/r/kb/notes/types/x.md' });
    expect(resolveKbPath('../types/x.md', 'kb/notes/a.md', '/r')).toMatchObject({ ok: true, path: 'kb/types/x.md' });
    expect(resolveKbPath('kb/types/x.md', 'kb/notes/deep/a.md', '/r')).toMatchObject({ ok: true, path: 'kb/types/x.md' });
    expect(resolveKbPath('/etc/passwd', 'kb/a.md', '/r')).toMatchObject({ ok: false });
    expect(resolveKbPath(42, 'kb/a.md', '/r')).toEqual({ ok: false, reason: 'must be a path string, found 42' });
  });
});
