import { cp, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { TypeRegistry } from '../../src/kb/type-registry.js';
import { validateFile } from '../../src/kb/validate.js';
import { corpusFixture, makeTemp, removeTemps } from './helpers.js';

let root: string;

beforeAll(async () => {
  root = await makeTemp('commonplace-severity-');
  await cp(path.join(corpusFixture, 'kb/types'), path.join(root, 'kb/types'), { recursive: true });
  await mkdir(path.join(root, 'kb/notes'), { recursive: true });
});
afterAll(removeTemps);

async function validateNote(name: string, text: string) {
  const file = `kb/notes/${name}`;
  await writeFile(path.join(root, file), text);
  return validateFile(file, { repoRoot: root, registry: new TypeRegistry(root) });
}

describe("the corpus's note-base severity rules", () => {
  test('a note with a 30-character description gets a warning from note-base, not a failure', async () => {
    const description = 'Thirty characters exactly, ok.';
    expect(description).toHaveLength(30);
    const result = await validateNote('short.md', `---\ntype: kb/types/note.md\ndescription: ${description}\n---\n\n# Short\n\nBody.\n`);
    expect(result.kind).toBe('note');
    expect(result.findings).toEqual([
      {
        file: 'kb/notes/short.md',
        line: 3,
        rule: 'schema/minLength',
        keyword: 'minLength',
        path: '/frontmatter/description',
        severity: 'warn',
        schema: 'kb/types/note-base.schema.yaml#/properties/frontmatter/properties/description/allOf/0/minLength',
        message: 'description should be at least 50 characters (frontmatter `description` has 30 characters, fewer than 50)',
      },
    ]);
  });

  test('a note missing its description fails on the required rule', async () => {
    const result = await validateNote('missing.md', '---\ntype: kb/types/note.md\n---\n\n# Missing\n\nBody.\n');
    const failures = result.findings.filter((finding) => finding.severity === 'fail');
    expect(failures).toEqual([
      expect.objectContaining({
        rule: 'schema/required',
        path: '/frontmatter/description',
        message: 'frontmatter `description` is required',
        schema: 'kb/types/note-base.schema.yaml#/properties/frontmatter/required',
      }),
    ]);
    expect(result.findings.filter((finding) => finding.severity === 'warn')).toEqual([]);
  });

  test('a 50-character description is clean, the warning boundary being inclusive', async () => {
    const description = 'x'.repeat(50);
    const result = await validateNote('fifty.md', `---\ntype: kb/types/note.md\ndescription: ${description}\n---\n\n# Fifty\n`);
    expect(result.findings).toEqual([]);
  });

  test('a failure inside the same schema as a warning keeps its own severity', async () => {
    // `status: false` in note.schema.yaml forbids the field outright; the short description only warns.
    const result = await validateNote('both.md', '---\ntype: kb/types/note.md\ndescription: too short\nstatus: draft\n---\n\n# Both\n');
    expect(result.findings.map(({ rule, severity, path: at, line, schema }) => ({ rule, severity, at, line, schema }))).toEqual([
      {
        rule: 'schema/minLength',
        severity: 'warn',
        at: '/frontmatter/description',
        line: 3,
        schema: expect.stringContaining('kb/types/note-base.schema.yaml#'),
      },
      {
        rule: 'schema/false schema',
        severity: 'fail',
        at: '/frontmatter/status',
        line: 4,
        schema: 'kb/types/note.schema.yaml#/allOf/1/properties/frontmatter/properties/status/false schema',
      },
    ]);
    expect(result.findings[1]?.message).toBe('frontmatter `status` is not allowed');
  });

  test('an impossible body date fails the note-base date format', async () => {
    const description = 'A note whose body mentions a day that does not exist in the calendar';
    const result = await validateNote('date.md', `---\ntype: kb/types/note.md\ndescription: ${description}\n---\n\n# Date\n\nSeen on 2026-02-30.\n`);
    expect(result.findings).toEqual([
      expect.objectContaining({
        rule: 'schema/format',
        severity: 'fail',
        path: '/body_dates/0',
        message: '`body_dates.0` must be a valid date, found "2026-02-30"',
      }),
    ]);
  });
});
