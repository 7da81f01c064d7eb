/** The editor's decision: the last non-empty line of `decision.md` is exactly `Decision: edit` or `Decision: no-edit`. Pure. */
import type { Finding } from '../../kb/findings.js';
import type { Decision } from './types.js';

export type DecisionCheck = { ok: true; decision: Decision; rationale: string } | { ok: false; finding: Finding };

const DECISION_LINE = /^Decision: (edit|no-edit)[ \t\r]*$/;

/** Anything else is a finding the editor is re-asked with. */
export function checkDecision(text: string, file = 'decision.md'): DecisionCheck {
  const lines = text.split('\n');
  let last = lines.length - 1;
  while (last >= 0 && (lines[last] ?? '').trim() === '') last -= 1;
  if (last < 0)
    return {
      ok: false,
      finding: { file, rule: 'decision-line', severity: 'fail', message: 'it is empty; it must end with the line `Decision: edit` or `Decision: no-edit`' },
    };
  const match = DECISION_LINE.exec(lines[last] ?? '');
  if (!match) {
    const shown = (lines[last] ?? '').trim().slice(0, 60);
    return {
      ok: false,
      finding: {
        file,
        line: last + 1,
        rule: 'decision-line',
        severity: 'fail',
        message: `it must end with exactly \`Decision: edit\` or \`Decision: no-edit\`; its last line is \`${shown}\``,
      },
    };
  }
  return { ok: true, decision: match[1] as Decision, rationale: `${lines.slice(0, last).join('\n').trim()}\n` };
}

/** Texts that differ only in line endings and trailing blanks are the same edit (none). */
export function sameText(a: string, b: string): boolean {
  const plain = (text: string) =>
    text
      .replace(/\r\n?/g, '\n')
      .replace(/[ \t]+$/gm, '')
      .replace(/\n+$/, '');
  return plain(a) === plain(b);
}
