/**
 * A review worker's output contract, checked in code: the last non-empty line is `Result: pass|warn|fail` (`report` for a
 * report criterion); a bundle is one `## <gate_id>` section a gate, each ending in its own result line. Pure: workflow code
 * imports it (docs/review-status.md, "Result lines and bundles").
 */
import type { Finding } from '../kb/findings.js';

/** A verdict criterion's outcomes (review gates, type specs, COLLECTION.md). */
export const VERDICT_OUTCOMES = ['pass', 'warn', 'fail'] as const;
export type VerdictOutcome = (typeof VERDICT_OUTCOMES)[number];

/** Every outcome a result file can record: a report criterion (the critique instruction) records `report`. */
export const OUTCOMES = [...VERDICT_OUTCOMES, 'report'] as const;
export type Outcome = (typeof OUTCOMES)[number];

export interface ResultLineOptions {
  /** The criterion is a report criterion: the output must end `Result: report`. */
  readonly report?: boolean;
  /** The file named in findings (the output's path in the launch directory). Default `output`. */
  readonly file?: string;
  /** The criterion the output answers, named in its findings. */
  readonly criterion?: string;
  /** 1-based file line of the text's first line, when the text is a section of a larger file. Default 1. */
  readonly firstLine?: number;
}

export type ResultLineCheck =
  | { readonly ok: true; readonly outcome: Outcome; /** 1-based file line of the result line. */ readonly line: number }
  | { readonly ok: false; readonly findings: readonly Finding[] };

const RESULT_LINE = /^Result: (pass|warn|fail|report)[ \t\r]*$/;
/** Something that looks like an attempt at a result line, for a precise message. */
const RESULT_LIKE = /^[\s>*_`#-]*result\s*[:=-]?\s*[*_`]*\s*([a-z]+)?/i;

/** The indexes of strict result lines outside fenced code (a quoted example is not a verdict). */
function strictLinesOutsideFences(lines: readonly string[]): number[] {
  const found: number[] = [];
  let fence: string | undefined;
  lines.forEach((line, index) => {
    const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (fence !== undefined) {
      if (marker && marker[1]?.[0] === fence[0] && (marker[1]?.length ?? 0) >= fence.length) fence = undefined;
      return;
    }
    if (marker) fence = marker[1];
    else if (RESULT_LINE.test(line)) found.push(index);
  });
  return found;
}

/** Whether `value` is one of the outcomes a result file may record. */
export function isOutcome(value: unknown): value is Outcome {
  return typeof value === 'string' && (OUTCOMES as readonly string[]).includes(value);
}

/** Checks an output's strict result line, so a worker's verdict is read by code and never guessed from prose. */
export function checkResultLine(text: string, options: ResultLineOptions = {}): ResultLineCheck {
  const file = options.file ?? 'output';
  const firstLine = options.firstLine ?? 1;
  const expected = options.report === true ? '`Result: report`' : '`Result: pass`, `Result: warn` or `Result: fail`';
  const lines = text.split('\n');
  let last = lines.length - 1;
  while (last >= 0 && (lines[last] ?? '').trim() === '') last -= 1;
  const criterion = options.criterion !== undefined && { criterion: options.criterion };
  const fail = (message: string, line?: number): ResultLineCheck => ({
    ok: false,
    findings: [{ file, ...(line !== undefined && { line }), rule: 'result-line', severity: 'fail', message, ...criterion }],
  });
  if (last < 0) return fail(`the output is empty; it must end with the result line ${expected}`);

  const written = lines[last] ?? '';
  const line = firstLine + last;
  const match = RESULT_LINE.exec(written);
  const strict = strictLinesOutsideFences(lines).map((index) => firstLine + index);
  if (match && strict.length > 1) {
    return fail(`the output holds ${strict.length} result lines (lines ${strict.join(', ')}); exactly one, its last line, says the outcome`, strict[0]);
  }
  if (match) {
    const outcome = match[1] as Outcome;
    if (options.report === true && outcome !== 'report') {
      return fail(`the last line is \`Result: ${outcome}\`, but this is a report criterion: it must end \`Result: report\``, line);
    }
    if (options.report !== true && outcome === 'report') {
      return fail(`the last line is \`Result: report\`, but this is a verdict criterion: it must end ${expected}`, line);
    }
    return { ok: true, outcome, line };
  }

  // Say what is wrong with the line the worker most likely meant as its result line.
  const shown = `\`${truncate(written.trim(), 60)}\``;
  const loose = RESULT_LIKE.exec(written);
  if (loose) {
    const word = (loose[1] ?? '').toLowerCase();
    if (/^\s/.test(written) && RESULT_LINE.test(written.trimStart())) {
      return fail(`the result line must start at the beginning of the line, found ${shown}`, line);
    }
    if (isOutcome(word)) return fail(`the last line must be exactly \`Result: ${word}\` (lowercase, no markup or punctuation), found ${shown}`, line);
    return fail(`the last line ${shown} is not a result line; it must be exactly ${expected}`, line);
  }
  const earlier = lines.map((text, index) => index < last && RESULT_LINE.test(text)).lastIndexOf(true);
  if (earlier >= 0) {
    const at = firstLine + earlier;
    return fail(`a result line stands at line ${at}, but more text follows it; the result line must be the last non-empty line (last: ${shown})`, line);
  }
  return fail(`the output does not end with a result line: the last non-empty line is ${shown}; it must be exactly ${expected}`, line);
}

/** One gate's part of a bundle output that passed its result-line check. */
export interface BundleSection {
  readonly gate: string;
  readonly outcome: VerdictOutcome;
  /** The section's text without its heading, blank edges trimmed, ending in its result line: the result file's body. */
  readonly text: string;
  /** 1-based file line of the section's heading. */
  readonly line: number;
}

export interface BundleRejection {
  readonly gate: string;
  readonly findings: readonly Finding[];
}

export interface BundleCheck {
  /** Gates whose section is there once and ends in a valid result line, in expected order. */
  readonly accepted: readonly BundleSection[];
  /** Gates whose section is there but fails its check (or appears twice): re-ask them with these findings. */
  readonly rejected: readonly BundleRejection[];
  /** Expected gates with no section: re-ask only these (and the rejected); `missingSection` is each one's finding. */
  readonly missing: readonly string[];
  /** Findings about the bundle as a whole: sections for gates that were not asked. */
  readonly findings: readonly Finding[];
}

/** A heading line shaped like a criterion ID (`## lens/name`, or a KB path `## kb/types/note.md`), the only thing that opens a section. */
const SECTION_HEADING = /^## ([^\s/]+\/[^\s/]+|kb\/[^\s]+\.md)[ \t\r]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/**
 * Splits a bundle output into per-gate sections and checks each one's result line,
 * so one launch can review several gates and each still gets its own result file.
 */
export function checkBundle(text: string, expectedGates: readonly string[], options: { readonly file?: string } = {}): BundleCheck {
  const file = options.file ?? 'output';
  const lines = text.split('\n');
  const headings: { gate: string; index: number }[] = [];
  let fence: string | undefined;
  lines.forEach((line, index) => {
    const marker = FENCE.exec(line);
    const heading = SECTION_HEADING.exec(line);
    if (fence !== undefined) {
      if (marker && marker[1]?.[0] === fence[0] && (marker[1]?.length ?? 0) >= fence.length && line.trim() === marker[1]) fence = undefined;
    } else if (marker) {
      fence = marker[1];
    } else if (heading) {
      headings.push({ gate: heading[1] as string, index });
    }
  });

  const expected = new Set(expectedGates);
  const fail = (criterion: string, rule: string, at: number, message: string): Finding => ({ file, line: at + 1, rule, severity: 'fail', criterion, message });
  const findings: Finding[] = [];
  const sections = new Map<string, { index: number; end: number }[]>();
  headings.forEach((heading, position) => {
    const end = headings[position + 1]?.index ?? lines.length;
    if (expected.has(heading.gate)) {
      sections.set(heading.gate, [...(sections.get(heading.gate) ?? []), { index: heading.index, end }]);
    } else {
      const message = `section \`## ${heading.gate}\` is for a gate that was not asked (asked: ${expectedGates.join(', ')}); it was ignored`;
      findings.push(fail(heading.gate, 'bundle-section', heading.index, message));
    }
  });

  const accepted: BundleSection[] = [];
  const rejected: BundleRejection[] = [];
  const missing: string[] = [];
  for (const gate of expectedGates) {
    const found = sections.get(gate) ?? [];
    const [first, second] = found;
    if (first === undefined) {
      missing.push(gate);
      continue;
    }
    if (second !== undefined) {
      const message = `gate ${gate} has ${found.length} sections (lines ${found.map((section) => section.index + 1).join(', ')}); write exactly one \`## ${gate}\` section`;
      rejected.push({ gate, findings: [fail(gate, 'bundle-section', second.index, message)] });
      continue;
    }
    let start = first.index + 1;
    let stop = first.end;
    while (start < stop && (lines[start] ?? '').trim() === '') start += 1;
    while (stop > start && (lines[stop - 1] ?? '').trim() === '') stop -= 1;
    const body = lines.slice(start, stop).join('\n');
    if (body === '') {
      const message = `section ${gate} is empty; it must hold the review and end with its result line`;
      rejected.push({ gate, findings: [fail(gate, 'result-line', first.index, message)] });
      continue;
    }
    const check = checkResultLine(body, { file, firstLine: start + 1, criterion: gate });
    if (check.ok) accepted.push({ gate, outcome: check.outcome as VerdictOutcome, text: `${body}\n`, line: first.index + 1 });
    else rejected.push({ gate, findings: check.findings });
  }
  return { accepted, rejected, missing, findings };
}

/** The finding for an expected gate a bundle output has no section for (rule `bundle-missing`). */
export function missingSection(gate: string, file = 'output'): Finding {
  return { file, rule: 'bundle-missing', severity: 'fail', criterion: gate, message: `the output has no \`## ${gate}\` section` };
}

function truncate(text: string, length: number): string {
  return text.length > length ? `${text.slice(0, length)}…` : text;
}
