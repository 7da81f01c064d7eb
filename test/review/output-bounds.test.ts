import { DEFAULT_MAX_OUTPUT_BYTES, outputText } from '../../src/review/output-bounds.js';
import { checkBundle, checkResultLine } from '../../src/review/result-line.js';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('output bounds', () => {
  test('text within the bounds reads as it is', () => {
    expect(outputText(bytes('Fine.\n\nResult: pass\n'), { file: 'review.md' })).toEqual({ ok: true, text: 'Fine.\n\nResult: pass\n' });
  });

  test('random bytes before a result line are refused as not UTF-8 text', () => {
    const noise = Uint8Array.from([0xc3, 0x28, 0xff, 0xfe, ...bytes('\nResult: pass\n')]);
    const read = outputText(noise, { file: 'review.md', criterion: 'prose/x' });
    expect(read).toEqual({
      ok: false,
      findings: [expect.objectContaining({ rule: 'output-encoding', file: 'review.md', criterion: 'prose/x', severity: 'fail' })],
    });
  });

  test('a NUL byte is refused with its position', () => {
    const read = outputText(Uint8Array.from([...bytes('ab'), 0, ...bytes('\nResult: pass\n')]), { file: 'review.md' });
    expect(read.ok === false && read.findings[0]).toMatchObject({ rule: 'output-binary', message: expect.stringContaining('at byte 2') });
  });

  test('an output over the cap is refused, naming its size and the cap', () => {
    const big = new Uint8Array(DEFAULT_MAX_OUTPUT_BYTES + 1).fill(0x61);
    const read = outputText(big, { file: 'review.md' });
    expect(read.ok === false && read.findings[0]).toMatchObject({
      rule: 'output-too-large',
      message: expect.stringContaining(`over the cap of ${DEFAULT_MAX_OUTPUT_BYTES}`),
    });
  });

  test('a smaller cap from the profile applies', () => {
    expect(outputText(bytes('x'.repeat(11)), { file: 'review.md', maxBytes: 10 }).ok).toBe(false);
  });
});

describe('exactly one result line', () => {
  test('`Result: pass` then `Result: fail` is refused, naming both lines', () => {
    const check = checkResultLine('Looks fine.\nResult: pass\nOn second thought.\nResult: fail\n', { file: 'review.md' });
    expect(check).toEqual({
      ok: false,
      findings: [expect.objectContaining({ rule: 'result-line', line: 2, message: expect.stringContaining('2 result lines (lines 2, 4)') })],
    });
  });

  test('in a bundle, a section with two result lines is refused and the other section accepted', () => {
    const text = '## prose/a\n\nFine.\nResult: pass\nResult: warn\n\n## prose/b\n\nGood.\nResult: pass\n';
    const check = checkBundle(text, ['prose/a', 'prose/b'], { file: 'review.md' });
    expect(check.accepted.map((section) => section.gate)).toEqual(['prose/b']);
    expect(check.rejected.map((refusal) => refusal.gate)).toEqual(['prose/a']);
  });
});
