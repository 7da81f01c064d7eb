/**
 * A full pass or revision that spends its attempt budget stops with a reason the Web UI shows in its
 * current details: bounded to a screen (the counts and the first finding), never cut mid-word.
 */
import type { Finding } from '../../src/kb/findings.js';
import { budgetStopReason } from '../../src/workflows/editing/budget-stop-reason.js';

const finding = (message: string): Finding => ({ file: 'kb/notes/x.md', rule: 'review/check', message, severity: 'fail' });
const wordy = (words: number, seed: string) => Array.from({ length: words }, (_, index) => `${seed}${index}`).join(' ');

test('a long finding is quoted on one line, cut at a word boundary and marked with an ellipsis', () => {
  const text = `first line\n${wordy(200, 'word')}`;
  const reason = budgetStopReason('the editor', 3, [{ label: '', findings: [finding(text)] }]);
  expect(reason).not.toContain('\n');
  const quoted = /first: (.*) …$/.exec(reason)?.[1] ?? '';
  expect(quoted.length).toBeGreaterThan(100);
  expect(quoted.length).toBeLessThanOrEqual(240);
  // Every word kept is whole: one of the text's own words.
  expect(quoted.split(' ').every((word) => text.split(/\s+/).includes(word))).toBe(true);
});

test("many units' findings give the counts and the first finding only, the rest left to the run directory", () => {
  const spent = Array.from({ length: 12 }, (_, unit) => ({
    label: `prose/gate-${unit}, prose/other-${unit}`,
    findings: Array.from({ length: 5 }, (_, index) => finding(`${wordy(60, `u${unit}f${index}w`)}.`)),
  }));
  const reason = budgetStopReason('review outputs kept failing their check', 3, spent);
  expect(reason).toMatch(
    /^review outputs kept failing their check: attempt budget \(3\) spent; 12 units, 60 findings; first: prose\/gate-0, prose\/other-0 — u0f0w0 u0f0w1 /,
  );
  expect(reason).toMatch(/ … \(the rest in the run directory\)$/);
  expect(reason).not.toContain('u0f1w0');
  expect(reason).not.toContain('u1f0w0');
  // A screen: at most ~15 lines of 80 columns, and in practice a few.
  expect(reason.length).toBeLessThanOrEqual(15 * 80);
  expect(reason.length).toBeLessThanOrEqual(450);
  expect(reason).not.toContain('\n');
});

test("one unit's single finding is quoted whole, with no pointer to the rest", () => {
  expect(budgetStopReason('the editor', 3, [{ label: '', findings: [finding('edited.md is missing')] }])).toBe(
    'the editor: attempt budget (3) spent; 1 finding; first: edited.md is missing',
  );
});
