import { cp, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { FileResult } from '../../src/kb/findings.js';
import { collectFiles, validateFiles, type ValidationReport } from '../../src/kb/validate.js';
import { corpusFixture, makeTemp, removeTemps, repoRoot } from './helpers.js';

const fixtures = path.join(repoRoot, 'test/fixtures/kb/bad-inputs');
const GOOD = '---\ntype: kb/types/note.md\ndescription: A well-formed note used as the carrier of an encoding defect\n---\n\n# Carrier\n\nBody text.\n';

let root: string;
let report: ValidationReport;
let elapsedMs: number;

beforeAll(async () => {
  root = await makeTemp('commonplace-bad-');
  await cp(path.join(corpusFixture, 'kb/types'), path.join(root, 'kb/types'), { recursive: true });
  await cp(path.join(fixtures, 'types'), path.join(root, 'kb/types'), { recursive: true });
  await cp(path.join(fixtures, 'notes'), path.join(root, 'kb/notes'), { recursive: true });
  const notes = path.join(root, 'kb/notes');
  await mkdir(notes, { recursive: true });
  // Generated here: git could rewrite them, or they would bloat the repository.
  await writeFile(path.join(notes, 'bom.md'), Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(GOOD)]));
  await writeFile(path.join(notes, 'crlf.md'), GOOD.replace(/\n/g, '\r\n'));
  await writeFile(path.join(notes, 'empty.md'), '');
  await writeFile(path.join(notes, 'binary.md'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52]));
  await writeFile(
    path.join(notes, 'latin1.md'),
    Buffer.concat([
      Buffer.from('---\ntype: kb/types/note.md\ndescription: Caf'),
      Buffer.from([0xe9]),
      Buffer.from(' written in Latin-1 rather than UTF-8 by an old editor\n---\n'),
    ]),
  );
  const paragraph = 'This paragraph repeats to make the note about five megabytes long, which no real note is. ';
  const huge = `${GOOD}${paragraph.repeat(Math.ceil((5 * 1024 * 1024) / paragraph.length))}\n\nIt ends with an impossible day, 2026-02-30.\n`;
  await writeFile(path.join(notes, 'huge.md'), huge);

  const started = performance.now();
  report = await validateFiles(await collectFiles(root, ['kb/notes', 'kb/types/broken-ref.schema.yaml'], root), { repoRoot: root });
  elapsedMs = performance.now() - started;
});
afterAll(removeTemps);

function result(name: string): FileResult {
  const found = report.results.find((candidate) => candidate.file === name);
  if (found === undefined) throw new Error(`no result for ${name}`);
  return found;
}

const rows: { name: string; file: string; kind: FileResult['kind']; rule: string; severity: 'fail' | 'warn'; line?: number; message: RegExp }[] = [
  // The parser notices the unclosed `[` of line 3 when line 4 starts a new key.
  {
    name: 'broken YAML',
    file: 'kb/notes/broken-yaml.md',
    kind: 'unreadable',
    rule: 'yaml',
    severity: 'fail',
    line: 4,
    message: /^malformed YAML frontmatter: Flow sequence .*end with a \]$/,
  },
  {
    name: 'tab-indented frontmatter',
    file: 'kb/notes/tab-indented.md',
    kind: 'unreadable',
    rule: 'yaml',
    severity: 'fail',
    line: 3,
    message: /Tabs are not allowed as indentation/,
  },
  {
    name: 'an unclosed frontmatter block',
    file: 'kb/notes/unclosed.md',
    kind: 'unreadable',
    rule: 'frontmatter-unclosed',
    severity: 'fail',
    line: 1,
    message: /never closed/,
  },
  { name: 'a BOM', file: 'kb/notes/bom.md', kind: 'note', rule: 'bom', severity: 'warn', line: 1, message: /byte-order mark/ },
  { name: 'CRLF line endings', file: 'kb/notes/crlf.md', kind: 'note', rule: 'crlf', severity: 'warn', line: 1, message: /CRLF line endings/ },
  { name: 'an empty file', file: 'kb/notes/empty.md', kind: 'text', rule: 'empty-file', severity: 'warn', message: /file is empty/ },
  {
    name: 'a binary file',
    file: 'kb/notes/binary.md',
    kind: 'unreadable',
    rule: 'binary-file',
    severity: 'fail',
    line: 3,
    message: /binary file \(NUL byte at offset 8\)/,
  },
  {
    name: 'a non-UTF-8 file',
    file: 'kb/notes/latin1.md',
    kind: 'unreadable',
    rule: 'encoding',
    severity: 'fail',
    line: 3,
    message: /not valid UTF-8: byte 0xe9 at line 3, column 17/,
  },
  {
    name: 'a type pointing nowhere',
    file: 'kb/notes/type-nowhere.md',
    kind: 'note',
    rule: 'type-unresolved',
    severity: 'fail',
    line: 2,
    message: /^type kb\/types\/nowhere\.md does not exist$/,
  },
  {
    // Reported once, at the type spec's `schema:` line, not at each note of the type.
    name: 'a schema with a broken $ref',
    file: 'kb/types/broken-ref.md',
    kind: 'note',
    rule: 'type-spec-schema',
    severity: 'fail',
    line: 5,
    message:
      /^schema kb\/types\/broken-ref\.schema\.yaml is unavailable: \$ref `\.\/missing-base\.schema\.yaml` at kb\/types\/broken-ref\.schema\.yaml#\/allOf\/0: kb\/types\/missing-base\.schema\.yaml does not exist; 1 note of this type is not checked against it \(kb\/notes\/broken-ref\.md\)$/,
  },
  { name: 'a 5 MB note', file: 'kb/notes/huge.md', kind: 'note', rule: 'large-file', severity: 'warn', message: /file is 5\.0 MiB/ },
];

describe('bad inputs', () => {
  test.each(rows)('$name gives its finding', (row) => {
    const found = result(row.file);
    expect(found.kind).toBe(row.kind);
    const finding = found.findings.find((candidate) => candidate.rule === row.rule);
    expect(finding).toBeDefined();
    expect(finding?.severity).toBe(row.severity);
    expect(finding?.line).toBe(row.line);
    expect(finding?.message).toMatch(row.message);
  });

  test('a BOM or CRLF endings are only warnings: the note underneath is read and validated clean', () => {
    for (const file of ['kb/notes/bom.md', 'kb/notes/crlf.md']) {
      const found = result(file);
      expect(found.type).toBe('kb/types/note.md');
      expect(found.findings.filter((finding) => finding.severity === 'fail')).toEqual([]);
      expect(found.findings).toHaveLength(1);
    }
  });

  test('a 5 MB note is validated through to its last line', () => {
    const found = result('kb/notes/huge.md');
    expect(found.findings.map((finding) => finding.rule).sort()).toEqual(['large-file', 'schema/format']);
    expect(found.findings.find((finding) => finding.rule === 'schema/format')?.message).toContain('"2026-02-30"');
  });

  test('the schema with the broken $ref is reported on the schema file itself too', () => {
    expect(result('kb/types/broken-ref.schema.yaml').findings).toEqual([
      expect.objectContaining({
        rule: 'schema-unavailable',
        severity: 'fail',
        message: expect.stringContaining('kb/types/missing-base.schema.yaml does not exist'),
      }),
    ]);
  });

  test('the run goes on past every bad input: all files are reported and the good note is clean', () => {
    expect(report.results.map((found) => found.file)).toEqual([
      'kb/notes/binary.md',
      'kb/notes/bom.md',
      'kb/notes/broken-ref.md',
      'kb/notes/broken-yaml.md',
      'kb/notes/crlf.md',
      'kb/notes/empty.md',
      'kb/notes/good.md',
      'kb/notes/huge.md',
      'kb/notes/latin1.md',
      'kb/notes/tab-indented.md',
      'kb/notes/type-nowhere.md',
      'kb/notes/unclosed.md',
      'kb/types/broken-ref.md',
      'kb/types/broken-ref.schema.yaml',
    ]);
    expect(result('kb/notes/broken-ref.md').findings).toEqual([]);
    expect(result('kb/notes/good.md')).toEqual({ file: 'kb/notes/good.md', kind: 'note', type: 'kb/types/note.md', findings: [] });
    expect(report.summary).toMatchObject({ files: 14, failures: 9, warnings: 4, failedFiles: 9 });
    expect(elapsedMs).toBeLessThan(5000);
  });
});
