/**
 * Selection lists, one per line: `- [s1] "leverages the cache" -> "uses the cache" — plain verb` (JSON strings; the reason optional).
 * The operator deletes a line to reject one or edits its replacement; code applies the approved list. Pure: the approval validator parses with it.
 */
import type { Finding } from '../../kb/findings.js';

export interface Selection {
  id: string;
  span: string;
  replacement: string;
  reason: string;
}

export type SelectionParse = { ok: true; selections: Selection[] } | { ok: false; findings: Finding[] };

/** The selector's output, which findings name by default. */
const SELECTION_LIST = 'selections.md';

const failing = (file: string, rule: string, message: string, line?: number): Finding => ({
  file,
  ...(line !== undefined && { line }),
  rule,
  severity: 'fail',
  message,
});

const ITEM = /^- \[([A-Za-z0-9][A-Za-z0-9_-]*)\] ("(?:[^"\\]|\\.)*") -> ("(?:[^"\\]|\\.)*")(?:[ \t]+(?:—|--)[ \t]+(.*?))?[ \t\r]*$/;

function jsonString(quoted: string): string | undefined {
  try {
    const value: unknown = JSON.parse(quoted);
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Other lines (headings, prose) are ignored. */
export function parseSelectionList(text: string, file = SELECTION_LIST): SelectionParse {
  const findings: Finding[] = [];
  const selections: Selection[] = [];
  const seen = new Set<string>();
  text.split('\n').forEach((line, index) => {
    if (!line.startsWith('- [')) return;
    const match = ITEM.exec(line);
    const at = index + 1;
    if (!match) {
      findings.push(failing(file, 'selection-syntax', `not a selection of the form \`- [id] "span" -> "replacement" — reason\`: \`${line.slice(0, 80)}\``, at));
      return;
    }
    const [, id, spanQuoted, replacementQuoted, reason] = match as unknown as [string, string, string, string, string | undefined];
    const span = jsonString(spanQuoted);
    const replacement = jsonString(replacementQuoted);
    if (span === undefined || replacement === undefined) {
      findings.push(failing(file, 'selection-json', 'the span and the replacement must be JSON strings in double quotes', at));
      return;
    }
    if (seen.has(id)) findings.push(failing(file, 'selection-duplicate', `selection id [${id}] appears twice`, at));
    seen.add(id);
    if (span.trim() === '') findings.push(failing(file, 'selection-empty', `selection [${id}] has an empty span`, at));
    else if (span === replacement) findings.push(failing(file, 'selection-unchanged', `selection [${id}] replaces its span with itself`, at));
    selections.push({ id, span, replacement, reason: (reason ?? '').trim() });
  });
  return findings.length > 0 ? { ok: false, findings } : { ok: true, selections };
}

export function formatSelection(selection: Selection): string {
  return `- [${selection.id}] ${JSON.stringify(selection.span)} -> ${JSON.stringify(selection.replacement)}${selection.reason ? ` — ${selection.reason}` : ''}`;
}

/** After the frontmatter block, if there is one. */
function bodyStart(text: string): number {
  if (!/^---[ \t]*\r?\n/.test(text)) return 0;
  const close = /\r?\n---[ \t]*(\r?\n|$)/g;
  close.lastIndex = 3;
  const found = close.exec(text);
  return found ? found.index + found[0].length : 0;
}

/** Each span must occur exactly once in the body, and spans must not overlap. */
export function locateSelections(
  text: string,
  selections: readonly Selection[],
  file = SELECTION_LIST,
): { ok: true; at: Map<string, number> } | { ok: false; findings: Finding[] } {
  const start = bodyStart(text);
  const body = text.slice(start);
  const findings: Finding[] = [];
  const at = new Map<string, number>();
  for (const selection of selections) {
    const first = body.indexOf(selection.span);
    if (first === -1) {
      findings.push(
        failing(
          file,
          'selection-not-found',
          `selection [${selection.id}]: its span ${JSON.stringify(selection.span.slice(0, 60))} does not occur in the note's body`,
        ),
      );
      continue;
    }
    if (body.indexOf(selection.span, first + 1) !== -1) {
      findings.push(
        failing(
          file,
          'selection-ambiguous',
          `selection [${selection.id}]: its span ${JSON.stringify(selection.span.slice(0, 60))} occurs more than once; quote enough to make it unique`,
        ),
      );
      continue;
    }
    at.set(selection.id, start + first);
  }
  const placed = selections.filter((selection) => at.has(selection.id)).sort((a, b) => at.get(a.id)! - at.get(b.id)!);
  for (let index = 1; index < placed.length; index += 1) {
    const before = placed[index - 1]!;
    const here = placed[index]!;
    if (at.get(before.id)! + before.span.length > at.get(here.id)!)
      findings.push(failing(file, 'selection-overlap', `selections [${before.id}] and [${here.id}] overlap`));
  }
  return findings.length > 0 ? { ok: false, findings } : { ok: true, at };
}

/** From the end backwards, so earlier positions hold. */
export function applySelections(
  text: string,
  selections: readonly Selection[],
  file = SELECTION_LIST,
): { ok: true; text: string } | { ok: false; findings: Finding[] } {
  const located = locateSelections(text, selections, file);
  if (!located.ok) return located;
  let result = text;
  for (const selection of [...selections].sort((a, b) => located.at.get(b.id)! - located.at.get(a.id)!)) {
    const position = located.at.get(selection.id)!;
    result = result.slice(0, position) + selection.replacement + result.slice(position + selection.span.length);
  }
  return { ok: true, text: result };
}
