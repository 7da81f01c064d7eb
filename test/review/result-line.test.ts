import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, test } from '@jest/globals';
import { findingsBlock } from '../../src/activities/review/prompt.js';
import { checkBundle, checkResultLine, missingSection } from '../../src/review/result-line.js';
import { repoRoot } from './helpers.js';

const review = (last: string, before = 'The note holds up.\n\n'): string => `${before}${last}`;

describe('the strict result line', () => {
  test.each([
    ['pass', 'Result: pass'],
    ['warn', 'Result: warn'],
    ['fail', 'Result: fail'],
  ])('a verdict output ending `Result: %s` is accepted with that outcome', (outcome, line) => {
    const check = checkResultLine(review(line));
    expect(check).toEqual({ ok: true, outcome, line: 3 });
  });

  test.each([
    ['trailing blank lines', 'Result: pass\n\n\n'],
    ['trailing spaces on the line', 'Result: pass   '],
    ['CRLF line endings', 'Result: pass\r\n'],
  ])('a result line with %s is still the last non-empty line and accepted', (_name, ending) => {
    expect(checkResultLine(review(ending))).toMatchObject({ ok: true, outcome: 'pass' });
  });

  test('a report criterion accepts only `Result: report`', () => {
    expect(checkResultLine(review('Result: report'), { report: true })).toMatchObject({ ok: true, outcome: 'report' });
    const verdict = checkResultLine(review('Result: pass'), { report: true });
    expect(verdict.ok).toBe(false);
    expect(!verdict.ok && verdict.findings[0]?.message).toContain('report criterion: it must end `Result: report`');
  });

  test('a verdict criterion refuses `Result: report`', () => {
    const check = checkResultLine(review('Result: report'));
    expect(!check.ok && check.findings[0]?.message).toContain('verdict criterion');
  });

  test.each([
    ['an empty output', '', 'the output is empty'],
    ['only blank lines', '\n  \n\n', 'the output is empty'],
    ['uppercase outcome', review('Result: PASS'), 'must be exactly `Result: pass` (lowercase, no markup or punctuation)'],
    ['bold markup', review('**Result: pass**'), 'must be exactly `Result: pass`'],
    ['trailing punctuation', review('Result: pass.'), 'must be exactly `Result: pass`'],
    ['lowercase key', review('result: pass'), 'must be exactly `Result: pass`'],
    ['an unknown outcome', review('Result: maybe'), 'is not a result line'],
    ['leading indentation', review('   Result: pass'), 'must start at the beginning of the line'],
    ['text after the result line', review('Result: pass\n\nThanks for reading.'), 'a result line stands at line 3, but more text follows it'],
    ['no result line at all', review('The end.'), 'does not end with a result line'],
  ])('%s is refused with a finding that says what to write', (_name, text, message) => {
    const check = checkResultLine(text, { file: 'launch/output.md' });
    expect(check.ok).toBe(false);
    if (check.ok) return;
    expect(check.findings).toHaveLength(1);
    expect(check.findings[0]).toMatchObject({ file: 'launch/output.md', rule: 'result-line', severity: 'fail' });
    expect(check.findings[0]?.message).toContain(message);
  });

  test('a refused line is located by its file line, offset for a section of a larger file', () => {
    const check = checkResultLine('one\ntwo\nResult: nope', { firstLine: 10 });
    expect(!check.ok && check.findings[0]?.line).toBe(12);
  });

  test.each(['src/review/result-line.ts', 'src/review/paths.ts'])('%s imports nothing at run time (workflow code imports it)', async (file) => {
    const source = await readFile(path.join(repoRoot, file), 'utf8');
    const imports = source.split('\n').filter((line) => /^\s*import\b/.test(line));
    expect(imports.every((line) => /^import type /.test(line))).toBe(true);
    expect(source).not.toMatch(/\bimport\(|\brequire\(/);
  });
});

const section = (gate: string, verdict: string, text = 'Looked at it.'): string => `## ${gate}\n\n${text}\n\n${verdict}\n`;

describe('bundle outputs', () => {
  const asked = ['prose/a', 'prose/b', 'prose/c'];

  test('each gate section ending in its result line is accepted with its own outcome and text', () => {
    const output = `# Bundle review\n\n${section('prose/a', 'Result: pass')}\n${section('prose/b', 'Result: warn', 'One weak spot.')}\n${section('prose/c', 'Result: fail')}`;
    const check = checkBundle(output, asked);
    expect(check.rejected).toEqual([]);
    expect(check.missing).toEqual([]);
    expect(check.findings).toEqual([]);
    expect(check.accepted.map(({ gate, outcome }) => [gate, outcome])).toEqual([
      ['prose/a', 'pass'],
      ['prose/b', 'warn'],
      ['prose/c', 'fail'],
    ]);
    expect(check.accepted[1]?.text).toBe('One weak spot.\n\nResult: warn\n');
    expect(check.accepted[0]?.line).toBe(3);
  });

  test('a gate without a section is missing, and only it is to be asked again', () => {
    const check = checkBundle(`${section('prose/a', 'Result: pass')}${section('prose/c', 'Result: pass')}`, asked);
    expect(check.missing).toEqual(['prose/b']);
    expect(check.accepted.map((accepted) => accepted.gate)).toEqual(['prose/a', 'prose/c']);
    expect(check.rejected).toEqual([]);
  });

  test('a section without a valid result line is rejected with a located finding, the others accepted', () => {
    const output = `${section('prose/a', 'Result: pass')}${section('prose/b', 'Verdict: fine')}${section('prose/c', 'Result: pass')}`;
    const check = checkBundle(output, asked, { file: 'out.md' });
    expect(check.accepted.map((accepted) => accepted.gate)).toEqual(['prose/a', 'prose/c']);
    expect(check.rejected).toHaveLength(1);
    expect(check.rejected[0]?.gate).toBe('prose/b');
    expect(check.rejected[0]?.findings).toEqual([
      {
        file: 'out.md',
        line: 10,
        rule: 'result-line',
        severity: 'fail',
        criterion: 'prose/b',
        message: expect.stringMatching(/^the output does not end with a result line: the last non-empty line is `Verdict: fine`/),
      },
    ]);
  });

  test("a missing section's finding names its criterion", () => {
    expect(missingSection('prose/b', 'review.md')).toEqual({
      file: 'review.md',
      rule: 'bundle-missing',
      severity: 'fail',
      criterion: 'prose/b',
      message: 'the output has no `## prose/b` section',
    });
  });

  test('an empty section is rejected as empty', () => {
    const check = checkBundle(`## prose/a\n\n${section('prose/b', 'Result: pass')}${section('prose/c', 'Result: pass')}`, asked);
    expect(check.rejected[0]).toMatchObject({ gate: 'prose/a' });
    expect(check.rejected[0]?.findings[0]?.message).toContain('section prose/a is empty');
  });

  test('a gate with two sections is rejected, not guessed', () => {
    const output = `${section('prose/a', 'Result: pass')}${section('prose/a', 'Result: fail')}${section('prose/b', 'Result: pass')}${section('prose/c', 'Result: pass')}`;
    const check = checkBundle(output, asked);
    expect(check.rejected.map((rejected) => rejected.gate)).toEqual(['prose/a']);
    expect(check.rejected[0]?.findings[0]?.message).toContain('has 2 sections');
  });

  test('a section for a gate that was not asked is reported and ignored', () => {
    const output = `${section('prose/a', 'Result: pass')}${section('prose/zzz', 'Result: pass')}${section('prose/b', 'Result: pass')}${section('prose/c', 'Result: pass')}`;
    const check = checkBundle(output, asked);
    expect(check.accepted).toHaveLength(3);
    expect(check.findings).toHaveLength(1);
    expect(check.findings[0]).toMatchObject({ rule: 'bundle-section', criterion: 'prose/zzz', severity: 'fail' });
    expect(check.findings[0]?.message).toContain('`## prose/zzz` is for a gate that was not asked');
  });

  test('ordinary headings and gate-shaped headings inside code fences stay inside the section', () => {
    const body = 'Findings below.\n\n## Findings\n\n```markdown\n## prose/b\nResult: fail\n```\n';
    const output = `${section('prose/a', 'Result: warn', body)}${section('prose/b', 'Result: pass')}${section('prose/c', 'Result: pass')}`;
    const check = checkBundle(output, asked);
    expect(check.rejected).toEqual([]);
    expect(check.accepted[0]).toMatchObject({ gate: 'prose/a', outcome: 'warn' });
    expect(check.accepted[0]?.text).toContain('## Findings');
    expect(check.accepted[0]?.text).toContain('```markdown\n## prose/b\nResult: fail\n```');
  });
});

describe("the re-ask prompt's findings block", () => {
  test("a review check's finding is shown with its criterion, file, line, message and rule", () => {
    const check = checkResultLine('The note holds up.\n\nresult: PASS\n', { file: 'review.md', criterion: 'prose/a' });
    expect(check).toEqual({
      ok: false,
      findings: [
        { file: 'review.md', line: 3, rule: 'result-line', severity: 'fail', criterion: 'prose/a', message: expect.stringContaining('exactly `Result: pass`') },
      ],
    });
    if (check.ok) return;
    expect(findingsBlock(check.findings)).toEqual([
      'Your previous output was refused by the check; fix these and write the output again:',
      `- prose/a: review.md:3: ${check.findings[0]!.message} (result-line)`,
      '',
    ]);
  });

  test('no findings make no findings block', () => {
    expect(findingsBlock([])).toEqual([]);
  });
});
