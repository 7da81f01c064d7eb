/**
 * The verification protocol: `## Blockers` and `## Limits`, each `none` or a list (blockers name their role when several).
 * Code applies the verdict to the exact versions verified; an unparsable verdict is a rejected candidate. Pure: workflows import it.
 */
import type { Finding } from './findings.js';

export type ProtocolFinding = Omit<Finding, 'file'>;

export interface VerdictOptions {
  /** The roles the verifier was handed (its layout role's `verifies`). */
  readonly subjects: readonly string[];
  /** Every role of the layout, so a blocker naming a role it was not handed is recognised as such. */
  readonly roles?: readonly string[];
  /** File line of the body's first line, so findings point into the file. Default 1. */
  readonly firstLine?: number;
}

export interface Verdict {
  readonly subjects: readonly string[];
  /** Blockers per subject, every subject present (an empty list for an accepted one). */
  readonly blockers: Readonly<Record<string, readonly string[]>>;
  readonly limits: readonly string[];
  /** Subjects with at least one blocker, in `subjects` order. */
  readonly refused: readonly string[];
  readonly accepted: readonly string[];
}

export type VerdictParse =
  { readonly ok: true; readonly verdict: Verdict; readonly findings: readonly [] } | { readonly ok: false; readonly findings: readonly ProtocolFinding[] };

const SECTIONS = ['Blockers', 'Limits'] as const;
type SectionName = (typeof SECTIONS)[number];

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const SECTION_BREAK = /^ {0,3}#{1,2}(?:[ \t]|$)/;
const SECTION_HEADING = /^ {0,3}##[ \t]+(.*?)[ \t#]*$/;
const ITEM = /^(?:[-*+]|\d{1,9}[.)])[ \t]+(.*)$/;
const ADDRESS = /^(?:\*\*|`)?([A-Za-z0-9][\w.-]*?)(?:\*\*|`)?[ \t]*:(?:\*\*)?[ \t]*([\s\S]*)$/;

/** Parses a verifier's document into blockers per subject and limits, or into the findings that make it a rejected candidate. */
export function parseVerdict(body: string, options: VerdictOptions): VerdictParse {
  const firstLine = options.firstLine ?? 1;
  const subjects = [...new Set(options.subjects)];
  const roles = new Set(options.roles ?? []);
  const findings: ProtocolFinding[] = [];
  const fail = (rule: string, message: string, index?: number): void => {
    findings.push({ rule: `verification/${rule}`, severity: 'fail', message, ...(index !== undefined && { line: firstLine + index }) });
  };

  if (subjects.length === 0) {
    fail('no-subjects', 'this role verifies no subjects, so its verdict cannot be applied');
    return { ok: false, findings };
  }

  const lines = body.split('\n').map((line) => line.replace(/\r$/, ''));
  const sections = findSections(lines);
  const parsed: Partial<Record<SectionName, Item[]>> = {};
  for (const name of SECTIONS) {
    const found = sections.get(name) ?? [];
    const [section, again] = found;
    if (section === undefined) {
      fail('missing-section', `no \`## ${name}\` section: add one with \`none\` or a list`);
    } else if (again !== undefined) {
      const at = found.map((range) => firstLine + range.heading).join(', ');
      fail('duplicate-section', `\`## ${name}\` appears ${found.length} times (lines ${at}); keep one`, again.heading);
    } else {
      const items = parseList(lines, section, name, fail);
      if (items !== undefined) parsed[name] = items;
    }
  }

  const blockers: Record<string, string[]> = Object.fromEntries(subjects.map((subject) => [subject, []]));
  // With one subject a blocker may skip the address; with several it must name its subject.
  const only = subjects.length === 1 ? subjects[0] : undefined;
  for (const item of parsed.Blockers ?? []) {
    const [, named, rest = ''] = ADDRESS.exec(item.text) ?? [];
    if (named !== undefined && subjects.includes(named)) {
      if (rest.trim() === '') fail('empty-blocker', `blocker addressed to ${named} states nothing`, item.index);
      else blockers[named]?.push(rest.trim());
    } else if (named !== undefined && roles.has(named)) {
      fail('not-handed', `blocker addresses ${named}, which this verifier was not handed (it verifies ${subjects.join(', ')})`, item.index);
    } else if (only !== undefined) {
      blockers[only]?.push(item.text);
    } else {
      fail('unaddressed', `blocker does not start with the role it addresses (one of ${subjects.join(', ')}): \`- <role>: …\``, item.index);
    }
  }

  if (findings.length > 0) return { ok: false, findings };
  const refused = subjects.filter((subject) => (blockers[subject]?.length ?? 0) > 0);
  return {
    ok: true,
    findings: [],
    verdict: {
      subjects,
      blockers,
      limits: (parsed.Limits ?? []).map((item) => item.text),
      refused,
      accepted: subjects.filter((subject) => !refused.includes(subject)),
    },
  };
}

interface SectionRange {
  /** Index of the heading line. */
  readonly heading: number;
  /** Index one past the last content line. */
  readonly end: number;
}

interface Item {
  readonly text: string;
  readonly index: number;
}

/** Level-2 sections by title, outside fenced code; each runs to the next heading of level 1 or 2. */
function findSections(lines: readonly string[]): Map<string, SectionRange[]> {
  const starts: { title: string; heading: number }[] = [];
  const breaks: number[] = [];
  let fence: string | undefined;
  lines.forEach((line, index) => {
    const marker = FENCE.exec(line)?.[1];
    if (fence !== undefined) {
      if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) fence = undefined;
    } else if (marker !== undefined) {
      fence = marker;
    } else if (SECTION_BREAK.test(line)) {
      breaks.push(index);
      const heading = SECTION_HEADING.exec(line);
      if (heading) starts.push({ title: heading[1] ?? '', heading: index });
    }
  });
  const sections = new Map<string, SectionRange[]>();
  for (const start of starts) {
    const end = breaks.find((index) => index > start.heading) ?? lines.length;
    sections.set(start.title, [...(sections.get(start.title) ?? []), { heading: start.heading, end }]);
  }
  return sections;
}

/** A section's content as `none` (no items) or list items; anything else is a finding. */
function parseList(
  lines: readonly string[],
  section: SectionRange,
  name: SectionName,
  fail: (rule: string, message: string, index?: number) => void,
): Item[] | undefined {
  let failed = false;
  const refuse = (rule: string, message: string, index: number): void => {
    failed = true;
    fail(rule, message, index);
  };
  let first = section.heading + 1;
  let last = section.end - 1;
  while (first <= last && (lines[first] ?? '').trim() === '') first += 1;
  while (last >= first && (lines[last] ?? '').trim() === '') last -= 1;
  if (first > last) {
    fail('empty-section', `\`## ${name}\` is empty: write \`none\` or a list`, section.heading);
    return undefined;
  }
  if (first === last && (lines[first] ?? '').trim().toLowerCase() === 'none') return [];

  const items: { lines: string[]; index: number }[] = [];
  for (let index = first; index <= last; index += 1) {
    const line = lines[index] ?? '';
    const item = ITEM.exec(line);
    const current = items[items.length - 1];
    if (item) {
      items.push({ lines: [item[1] ?? ''], index });
    } else if (line.trim() !== '' && !/^[ \t]/.test(line)) {
      refuse('not-a-list', `\`## ${name}\` must be exactly \`none\` or a list: \`${clip(line)}\` is neither a \`- \` item nor an indented continuation`, index);
    } else if (current === undefined) {
      fail('not-a-list', `\`## ${name}\` must be exactly \`none\` or a list; line ${index + 1} of the body is not a list item`, index);
      return undefined;
    } else {
      current.lines.push(line.trim());
    }
  }
  if (failed) return undefined;
  const result = items.map((item) => ({ text: item.lines.join('\n').trim(), index: item.index }));
  for (const item of result) if (item.text === '') refuse('empty-item', `\`## ${name}\` has an empty list item`, item.index);
  if (result.length === 1 && result[0]?.text.toLowerCase() === 'none') {
    refuse('none-as-item', `write \`none\` on its own line under \`## ${name}\`, not as a list item`, result[0].index);
  }
  return failed ? undefined : result;
}

function clip(text: string): string {
  const trimmed = text.trim();
  return trimmed.length > 50 ? `${trimmed.slice(0, 47)}…` : trimmed;
}
