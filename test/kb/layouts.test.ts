import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, test } from '@jest/globals';
import { KbError } from '../../src/kb/errors.js';
import { destinationFor, layoutRole, loadLayout, parseLayout } from '../../src/kb/layouts.js';
import { repoRoot, toyFixture } from './helpers.js';

const ROOT = '/checkout';
const FILE = 'kb/types/x.layout.yaml';

function problems(source: string) {
  const parsed = parseLayout(source, FILE, ROOT);
  if (parsed.ok) throw new Error('expected the layout to be refused');
  return parsed.problems.map(({ line, message }) => ({ line, message }));
}

describe('layout files', () => {
  test('the toy layout loads with its roles, relations and resolved member types', async () => {
    const layout = await loadLayout('kb/types/toy-analysis.layout.yaml', toyFixture);
    expect(layout.name).toBe('toy-analysis');
    expect(layout.disposition).toEqual({ role: 'boundary', field: 'disposition' });
    expect(layout.roles.map((role) => role.name)).toEqual(['boundary', 'runtime-report', 'lens-report', 'report-verification', 'synthesis']);
    expect(layoutRole(layout, 'boundary')).toMatchObject({
      path: 'boundary.md',
      typeWritten: './toy-boundary.md',
      type: 'kb/types/toy-boundary.md',
      required: ['published', 'blocked', 'out-of-scope'],
      identity: { run: 'run' },
    });
    expect(layoutRole(layout, 'lens-report')).toMatchObject({ path: 'reports/lens-report.md', cites: ['boundary', 'runtime-report'], verifies: [] });
    expect(layoutRole(layout, 'report-verification').verifies).toEqual(['runtime-report', 'lens-report']);
  });

  test('the documented example in docs/layouts.md is a valid layout', async () => {
    const docs = await readFile(path.join(repoRoot, 'docs/layouts.md'), 'utf8');
    const example = /```yaml\n([\s\S]*?)```/.exec(docs)?.[1];
    expect(example).toBeDefined();
    const parsed = parseLayout(example as string, 'kb/types/agentic-analysis.layout.yaml', ROOT);
    expect(parsed.ok ? [] : parsed.problems).toEqual([]);
  });

  test('asking for an undeclared role is an explicit error naming the declared ones', async () => {
    const layout = await loadLayout('kb/types/toy-analysis.layout.yaml', toyFixture);
    expect(() => layoutRole(layout, 'memory-profile')).toThrow(
      new KbError(
        'undeclared-role',
        'role memory-profile is not declared by layout kb/types/toy-analysis.layout.yaml (its roles: boundary, runtime-report, lens-report, report-verification, synthesis)',
      ),
    );
  });

  test('every problem of a bad layout is reported at once, with its line', () => {
    const source = [
      'layout: bad',
      'roles:',
      '  runtime_report:',
      '    path: report.md',
      '    type: kb/types/report.md',
      '  verifier:',
      '    path: ../escape.md',
      '    type: kb/types/verification.md',
      '    required: [published, shipped]',
      '    verifies: [ghost]',
      '    colour: blue',
    ].join('\n');
    expect(problems(source)).toEqual([
      { line: 3, message: 'roles.runtime_report: role names must be lowercase words joined by hyphens (no underscores)' },
      { line: 7, message: 'roles.verifier.path: must be a relative path inside the artifact (no `..`, no leading `/`)' },
      { line: 9, message: 'roles.verifier.required.1: must be one of published, blocked, out-of-scope' },
      { line: 6, message: 'roles.verifier: unknown field colour' },
    ]);
  });

  test('relations must name declared roles, paths must be distinct, and cites need a record pattern', () => {
    const source = [
      'layout: bad',
      'roles:',
      '  a:',
      '    path: same.md',
      '    type: kb/types/a.md',
      '    cites: [b]',
      '  b:',
      '    path: same.md',
      '    type: ../../../outside.md',
      '    verifies: [b, c]',
    ].join('\n');
    expect(problems(source)).toEqual([
      { line: 6, message: 'roles.a.cites: cites records, but the layout declares no `records.id` pattern to recognise them' },
      { line: 8, message: 'roles.b.path: same.md is already the path of role a' },
      { line: 10, message: 'roles.b.verifies.0: a role cannot verify itself' },
      { line: 10, message: 'roles.b.verifies.1: names unknown role c (roles: a, b)' },
      { line: 9, message: 'roles.b.type: `../../../outside.md` resolves outside the repository' },
    ]);
  });

  test('malformed YAML and a bad record pattern are problems too', () => {
    expect(problems('layout: x\nroles: [\n')[0]?.message).toMatch(/^malformed YAML: /);
    expect(problems('layout: x\nrecords:\n  id: "SRC-("\nroles:\n  a:\n    path: a.md\n    type: kb/a.md\n')).toEqual([
      { line: 3, message: expect.stringMatching(/^records\.id: is not a valid regular expression/) },
    ]);
  });

  test('loading a layout that does not parse throws one error listing every problem', async () => {
    await expect(loadLayout('kb/types/missing.layout.yaml', toyFixture)).rejects.toThrow('layout kb/types/missing.layout.yaml cannot be read: no such file');
  });
});

describe('layout destination', () => {
  const base = 'layout: x\nroles:\n  boundary:\n    path: boundary.md\n    type: kb/types/note.md\n';
  test('a destination with {system} and {run} is kept and fills in per run', () => {
    const parsed = parseLayout(`${base}destination: kb/analyses/{system}/{run}\n`, FILE, ROOT);
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
    expect(parsed.layout.destination).toBe('kb/analyses/{system}/{run}');
    expect(destinationFor(parsed.layout.destination ?? '', { system: 'toy', run: 'AAS-2026-12-02-toy-01' })).toBe('kb/analyses/toy/AAS-2026-12-02-toy-01');
  });
  test.each([
    ['/kb/analyses', /destination: must be a relative directory in the repository/],
    ['kb/../outside', /destination: must be a relative directory in the repository/],
    ['kb/analyses/{colour}', /destination: may use only the placeholders \{system\} and \{run\}/],
  ])('destination %s is refused with its line', (destination, message) => {
    const found = problems(`${base}destination: ${destination}\n`);
    expect(found).toEqual([expect.objectContaining({ line: 6 })]);
    expect(found[0]?.message).toMatch(message);
  });
});
