import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, test } from '@jest/globals';
import YAML from 'yaml';
import { ReviewError } from '../../src/review/errors.js';
import { pairOfResultPath, resultPath } from '../../src/review/paths.js';
import { isSafePlain } from '../../src/review/quick-frontmatter.js';
import { formatResultFile, parseResultFile, readResultFile, writeResultFile, type ResultRecord } from '../../src/review/result-file.js';
import { makeTemp, removeTemps } from './helpers.js';

afterAll(removeTemps);

const NOTE_HASH = 'a'.repeat(64);
const CRITERION_HASH = '0123456789abcdef'.repeat(4);
const record: ResultRecord = {
  note: 'kb/notes/a-note.md',
  criterion: 'prose/source-residue',
  noteSha256: NOTE_HASH,
  criterionSha256: CRITERION_HASH,
  outcome: 'warn',
  profile: 'sonnet',
  model: 'claude-sonnet-4-5-20250929',
  run: 'gates/2026-11-10-01',
  launch: 'gates/2026-11-10-01/pair-0007/2',
  body: '## Findings\n\nOne sentence leaks source framing.\n\nResult: warn\n',
};
const file = resultPath(record.note, record.criterion);

/** The writer's text of `record` with its frontmatter lines changed by `change`. */
function withFrontmatter(change: (lines: string[]) => string[]): string {
  const text = formatResultFile(record);
  const end = text.indexOf('\n---\n', 3);
  const lines = text.slice(4, end).split('\n');
  return `---\n${change(lines).join('\n')}\n---\n${text.slice(end + 5)}`;
}
const replaceLine = (key: string, line: string | undefined) => (lines: string[]) =>
  lines.flatMap((existing) => (existing.startsWith(`${key}:`) ? (line === undefined ? [] : [line]) : [existing]));

describe('result file paths', () => {
  test.each([
    ['a gate', 'kb/notes/x.md', 'prose/source-residue', 'kb/reports/state/review/results/notes/x.md/prose/source-residue.md'],
    [
      'a nested note',
      'kb/notes/definitions/term.md',
      'semantic/explication-quality',
      'kb/reports/state/review/results/notes/definitions/term.md/semantic/explication-quality.md',
    ],
    ['a type spec', 'kb/notes/x.md', 'kb/types/note.md', 'kb/reports/state/review/results/notes/x.md/kb/types/note.md.md'],
    ['a COLLECTION.md', 'kb/notes/x.md', 'kb/notes/COLLECTION.md', 'kb/reports/state/review/results/notes/x.md/kb/notes/COLLECTION.md.md'],
  ])('the result of %s sits under the note path below kb/, and maps back to its pair', (_name, note, criterion, expected) => {
    expect(resultPath(note, criterion)).toBe(expected);
    expect(pairOfResultPath(expected)).toEqual({ note, criterion });
  });

  test('a note file and a folder of the same name never share a result directory', () => {
    expect(resultPath('kb/notes/types.md', 'prose/a')).not.toBe(resultPath('kb/notes/types/a.md', 'prose/a'));
    expect(path.posix.dirname(resultPath('kb/notes/types.md', 'prose/a'))).toBe('kb/reports/state/review/results/notes/types.md/prose');
  });
});

describe('result files', () => {
  test('a record survives format and parse unchanged, body verbatim', () => {
    const text = formatResultFile(record);
    expect(text).toBe(
      [
        '---',
        'note: kb/notes/a-note.md',
        'criterion: prose/source-residue',
        `note_sha256: ${NOTE_HASH}`,
        `criterion_sha256: ${CRITERION_HASH}`,
        'outcome: warn',
        'profile: sonnet',
        'model: claude-sonnet-4-5-20250929',
        'run: gates/2026-11-10-01',
        'launch: gates/2026-11-10-01/pair-0007/2',
        '---',
        '',
        '## Findings',
        '',
        'One sentence leaks source framing.',
        '',
        'Result: warn',
        '',
      ].join('\n'),
    );
    expect(parseResultFile(text, file)).toEqual({ ok: true, record });
  });

  test.each([
    ['values YAML would not read as plain strings', { model: 'claude-opus-4-1[1m]', profile: 'true', run: '2026', launch: 'a: b # c' }],
    ['unicode and quotes', { model: 'modèle "ß" \u2028 \u007f', profile: "it's" }],
    ['a body without a final newline, starting with a blank line', { body: '\nResult: pass', outcome: 'pass' as const }],
    ['a digest that is all digits', { noteSha256: '1'.repeat(64), criterionSha256: `12e${'4'.repeat(61)}` }],
  ])('%s round-trip, and YAML reads the written frontmatter to the same values', (_name, overrides) => {
    const changed: ResultRecord = { ...record, ...overrides };
    const text = formatResultFile(changed);
    expect(parseResultFile(text, file)).toEqual({ ok: true, record: changed });
    const frontmatter = YAML.parse(text.slice(4, text.indexOf('\n---\n'))) as Record<string, unknown>;
    expect(frontmatter['model']).toBe(changed.model);
    expect(frontmatter['profile']).toBe(changed.profile);
    expect(frontmatter['note_sha256']).toBe(changed.noteSha256);
    expect(frontmatter['criterion_sha256']).toBe(changed.criterionSha256);
  });

  test('the writer writes plain exactly the strings YAML reads back as those strings', () => {
    const values = [
      'abc',
      'null',
      'Null',
      '~',
      'true',
      'False',
      'yes',
      'on',
      '12',
      '-3',
      '0x1F',
      '0o17',
      '1.5',
      '.5',
      '1e3',
      '1E-3',
      '.inf',
      '-.Inf',
      '.nan',
      'a/b.c',
      'x@y',
      'a=b',
      '-a',
      '.hidden',
      '2026-11-10',
      '1_000',
      '0b101',
      '+1',
      'a-1',
      '123abc',
    ];
    for (const value of values) {
      if (isSafePlain(value)) expect([value, YAML.parse(`k: ${value}`).k]).toEqual([value, value]);
    }
    expect(values.filter(isSafePlain)).toEqual(['abc', 'yes', 'on', 'a/b.c', 'x@y', 'a=b', '.hidden', '2026-11-10', '1_000', '0b101', 'a-1', '123abc']);
  });

  test('a hand-edited file that is still valid YAML (quoted, reordered, CRLF) is accepted', () => {
    const text = [
      '---',
      "outcome: 'warn'",
      `criterion_sha256: "${CRITERION_HASH}"`,
      `note_sha256: ${NOTE_HASH}`,
      'criterion: prose/source-residue',
      'note: "kb/notes/a-note.md"',
      'profile: sonnet # the default profile',
      'model: claude-sonnet-4-5-20250929',
      'run: gates/2026-11-10-01',
      'launch: gates/2026-11-10-01/pair-0007/2',
      '---',
      '',
      'Result: warn',
      '',
    ].join('\r\n');
    expect(parseResultFile(text, file)).toEqual({ ok: true, record: { ...record, body: 'Result: warn\n' } });
  });

  const MALFORMED: [string, string, string, string][] = [
    ...(['note', 'criterion', 'note_sha256', 'criterion_sha256', 'outcome', 'profile', 'model', 'run', 'launch'] as const).map(
      (key): [string, string, string, string] => [
        `missing ${key}`,
        withFrontmatter(replaceLine(key, undefined)),
        'result-missing-key',
        `missing key \`${key}\``,
      ],
    ),
    ['an extra key', withFrontmatter((lines) => [...lines, 'cost: "0.1"']), 'result-extra-key', 'unexpected key `cost`'],
    ['a number where a string belongs', withFrontmatter(replaceLine('run', 'run: 42')), 'result-type', '`run` must be a string, found a number'],
    ['a list where a string belongs', withFrontmatter(replaceLine('model', 'model: [a, b]')), 'result-type', '`model` must be a string, found a list'],
    ['an empty value', withFrontmatter(replaceLine('profile', 'profile: ""')), 'result-type', '`profile` must not be empty'],
    ['a null value', withFrontmatter(replaceLine('launch', 'launch:')), 'result-type', '`launch` must be a string, found nothing'],
    ['uppercase hex', withFrontmatter(replaceLine('note_sha256', `note_sha256: ${'A'.repeat(64)}`)), 'result-hex', '`note_sha256` must be a SHA-256 digest'],
    [
      'a short digest',
      withFrontmatter(replaceLine('criterion_sha256', 'criterion_sha256: abc123')),
      'result-hex',
      '`criterion_sha256` must be a SHA-256 digest',
    ],
    ['a non-hex digest', withFrontmatter(replaceLine('note_sha256', `note_sha256: ${'g'.repeat(64)}`)), 'result-hex', '64 lowercase hex digits'],
    [
      'an unknown outcome',
      withFrontmatter(replaceLine('outcome', 'outcome: ok')),
      'result-outcome',
      '`outcome` must be one of pass, warn, fail, report; found `ok`',
    ],
    ['an uppercase outcome', withFrontmatter(replaceLine('outcome', 'outcome: PASS')), 'result-outcome', 'found `PASS`'],
    [
      'a note that is not this path’s note',
      withFrontmatter(replaceLine('note', 'note: kb/notes/other.md')),
      'result-path',
      'belong at kb/reports/state/review/results/notes/other.md/prose/source-residue.md, not here',
    ],
    [
      'a criterion that is not this path’s criterion',
      withFrontmatter(replaceLine('criterion', 'criterion: prose/other')),
      'result-path',
      'belong at kb/reports/state/review/results/notes/a-note.md/prose/other.md',
    ],
    ['a note outside kb/', withFrontmatter(replaceLine('note', 'note: notes/a-note.md')), 'result-path', 'must be repository-relative and start with kb/'],
    ['a note path climbing out', withFrontmatter(replaceLine('note', 'note: kb/../etc/a.md')), 'result-path', 'segment'],
    [
      'a criterion that is neither a gate ID nor a KB path',
      withFrontmatter(replaceLine('criterion', 'criterion: prose/deep/gate')),
      'result-path',
      'must be a gate ID',
    ],
    ['a duplicate key', withFrontmatter((lines) => [...lines, 'outcome: pass']), 'result-yaml', 'malformed YAML frontmatter'],
    ['broken YAML', withFrontmatter((lines) => [...lines, 'model: [unclosed']), 'result-yaml', 'malformed YAML frontmatter'],
    ['a frontmatter that is not a mapping', '---\n- a\n- b\n---\nResult: pass\n', 'result-yaml', 'must be a mapping'],
    ['no frontmatter', 'Result: pass\n', 'result-frontmatter', 'must start with a `---` frontmatter line'],
    ['an unclosed frontmatter', `---\nnote: ${record.note}\n\nResult: pass\n`, 'result-frontmatter', 'never closed'],
  ];

  test.each(MALFORMED)('%s is refused with a finding naming the file and the problem', (_name, text, rule, message) => {
    const parsed = parseResultFile(text, file);
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    const finding = parsed.findings.find((candidate) => candidate.rule === rule);
    expect(finding).toBeDefined();
    expect(finding?.file).toBe(file);
    expect(finding?.severity).toBe('fail');
    expect(finding?.message).toContain(message);
  });

  test('a line-located problem carries the file line of its key', () => {
    const parsed = parseResultFile(withFrontmatter(replaceLine('outcome', 'outcome: ok')), file);
    expect(!parsed.ok && parsed.findings[0]?.line).toBe(6);
  });

  test('every problem of a file is reported at once, not only the first', () => {
    const text = withFrontmatter((lines) =>
      replaceLine('outcome', 'outcome: ok')(replaceLine('note_sha256', 'note_sha256: xyz')(replaceLine('run', undefined)(lines))),
    );
    const parsed = parseResultFile(text, file);
    expect(!parsed.ok && parsed.findings.map((finding) => finding.rule).sort()).toEqual(['result-hex', 'result-missing-key', 'result-outcome']);
  });

  test('the path check accepts an absolute path that ends in the result path', () => {
    expect(parseResultFile(formatResultFile(record), `/home/kb-checkout/${file}`).ok).toBe(true);
    expect(parseResultFile(formatResultFile(record), '/home/kb-checkout/elsewhere/x.md').ok).toBe(false);
  });
});

describe('writing result files', () => {
  test('writes the file at its pair path and leaves no temporary file behind', async () => {
    const root = await makeTemp();
    const written = await writeResultFile(root, record);
    expect(written).toBe(file);
    expect(await readFile(path.join(root, file), 'utf8')).toBe(formatResultFile(record));
    expect(await readdir(path.dirname(path.join(root, file)))).toEqual(['source-residue.md']);
    expect(await readResultFile(root, record.note, record.criterion)).toEqual({ ok: true, record });
  });

  test('a second write replaces the result: one result per pair, whichever profile wrote it', async () => {
    const root = await makeTemp();
    await writeResultFile(root, record);
    await writeResultFile(root, { ...record, profile: 'codex', model: 'gpt-5-codex', outcome: 'pass', body: 'Result: pass\n' }, { fsync: false });
    const read = await readResultFile(root, record.note, record.criterion);
    expect(read).toMatchObject({ ok: true, record: { profile: 'codex', outcome: 'pass' } });
    expect(await readdir(path.dirname(path.join(root, file)))).toEqual(['source-residue.md']);
  });

  test('concurrent writes of one pair leave one complete file, never a mix', async () => {
    const root = await makeTemp();
    const bodies = Array.from({ length: 20 }, (_, index) => `${'x'.repeat(20_000)} ${index}\n\nResult: pass\n`);
    await Promise.all(bodies.map((body, index) => writeResultFile(root, { ...record, outcome: 'pass', launch: `l/${index}`, body })));
    const read = await readResultFile(root, record.note, record.criterion);
    expect(read.ok).toBe(true);
    if (!read.ok) return;
    const index = Number(read.record.launch.slice(2));
    expect(read.record.body).toBe(bodies[index]);
    expect(await readdir(path.dirname(path.join(root, file)))).toEqual(['source-residue.md']);
  });

  test.each([
    ['a bad digest', { noteSha256: 'nothex' }, 'note_sha256'],
    ['an empty model', { model: '' }, '`model` must not be empty'],
    ['a note outside kb/', { note: 'notes/x.md' }, 'must be repository-relative and start with kb/'],
    ['an unknown outcome', { outcome: 'ok' as unknown as 'pass' }, '`outcome` must be one of'],
  ])('a record with %s is refused before anything is written', async (_name, overrides, message) => {
    const root = await makeTemp();
    const attempt = writeResultFile(root, { ...record, ...overrides });
    await expect(attempt).rejects.toThrow(ReviewError);
    await expect(attempt).rejects.toThrow(message);
    expect(await readdir(root)).toEqual([]);
  });

  test('reading a pair without a result says it is absent', async () => {
    const root = await makeTemp();
    expect(await readResultFile(root, record.note, record.criterion)).toEqual({ ok: false, absent: true });
  });

  test('reading a malformed result returns its findings', async () => {
    const root = await makeTemp();
    await writeResultFile(root, record);
    await writeFile(path.join(root, file), withFrontmatter(replaceLine('outcome', 'outcome: ok')));
    const read = await readResultFile(root, record.note, record.criterion);
    expect(read).toMatchObject({ ok: false, findings: [{ rule: 'result-outcome', file }] });
  });
});
