/**
 * Freshness hashes: a pair is fresh while the note hash (over the parts its criterion watches) and the criterion hash
 * both match; taken over normalised text, so whitespace-only edits change nothing (docs/freshness.md).
 */
import { sha256 } from '../fs/digest.js';
import type { Finding } from '../kb/findings.js';
import YAML from 'yaml';
import { extractHeadings, noteTitle } from '../kb/notes.js';
import { ReviewError } from './errors.js';
import { quickFrontmatter } from './quick-frontmatter.js';

/** The note parts a criterion's `watches:` may name, in the order they are hashed. */
export const WATCHED_PARTS = ['title', 'description', 'body', 'frontmatter'] as const;
export type WatchedPart = (typeof WATCHED_PARTS)[number];

export type Watches =
  | { readonly declared: true; readonly parts: readonly WatchedPart[] }
  /** No valid `watches:`: the criterion watches the whole note (every part). */
  | { readonly declared: false; readonly parts: readonly WatchedPart[]; readonly problem?: string };

/** Reads a criterion's `watches:` value; anything but a non-empty list of known parts means the whole note. */
export function parseWatches(value: unknown): Watches {
  const whole = (problem?: string): Watches => ({ declared: false, parts: WATCHED_PARTS, ...(problem === undefined ? {} : { problem }) });
  if (value === undefined || value === null) return whole();
  if (!Array.isArray(value)) return whole(`\`watches:\` must be a list of ${WATCHED_PARTS.join(', ')}, found ${describe(value)}`);
  if (value.length === 0) return whole('`watches:` is an empty list');
  const unknown = value.filter((item) => !(WATCHED_PARTS as readonly unknown[]).includes(item));
  if (unknown.length > 0) return whole(`\`watches:\` names ${unknown.map((item) => `\`${String(item)}\``).join(', ')}, not one of ${WATCHED_PARTS.join(', ')}`);
  return { declared: true, parts: WATCHED_PARTS.filter((part) => value.includes(part)) };
}

/** The normalised watchable parts of one note, computed once and hashed under any number of watch sets. */
export interface NoteParts {
  /** The first `# ` heading, internal whitespace runs collapsed; null when the note has none. */
  readonly title: string | null;
  /** Frontmatter `description`, as a canonical JSON value (strings whitespace-collapsed); null when absent. */
  readonly description: unknown;
  /** The body after the frontmatter, normalised by `normaliseText`. */
  readonly body: string;
  /** The frontmatter mapping as canonical JSON: keys sorted, strings whitespace-collapsed. */
  readonly frontmatter: string;
}

/**
 * A note's watchable parts (none when its frontmatter cannot be read; all body without frontmatter). Reads as
 * `parseNote` does but skips links, dates and field lines, which would double status's time over a whole KB.
 */
export function noteParts(noteText: string, file = 'note'): NotePartsRead {
  let text = noteText.charCodeAt(0) === 0xfeff ? noteText.slice(1) : noteText;
  if (text.includes('\r')) text = text.replace(/\r\n?/g, '\n');
  if (!/^---\s*(?:\n|$)/.test(text)) return { ok: true, parts: partsOf(text, {}) };

  const unreadable = (message: string, line?: number): NotePartsRead => ({
    ok: false,
    findings: [{ file, ...(line === undefined ? {} : { line }), rule: 'frontmatter', severity: 'fail', message }],
  });
  const lines = text.split('\n');
  const close = lines.findIndex((line, index) => index > 0 && line.startsWith('---'));
  if (close === -1) return unreadable('frontmatter opened on line 1 is never closed', 1);
  if ((lines[close] as string).trimEnd() !== '---') return unreadable(`frontmatter closing line must be exactly \`---\``, close + 1);

  let data: unknown = quickFrontmatter(lines.slice(1, close));
  if (data === undefined) {
    const doc = YAML.parseDocument(lines.slice(1, close).join('\n'), { uniqueKeys: true, prettyErrors: false });
    if (doc.errors.length > 0) return unreadable(`malformed YAML frontmatter: ${doc.errors[0]?.message.split('\n')[0] ?? ''}`);
    try {
      data = doc.toJS({ maxAliasCount: 100 }) ?? {};
    } catch (error) {
      return unreadable(`malformed YAML frontmatter: ${(error as Error).message}`);
    }
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return unreadable('frontmatter must be a YAML mapping of fields', 2);
  const frontmatter = data as Record<string, unknown>;
  return { ok: true, frontmatter, parts: partsOf(lines.slice(close + 1).join('\n'), frontmatter) };
}

function partsOf(body: string, frontmatter: Record<string, unknown>): NoteParts {
  const title = noteTitle(extractHeadings(body));
  const description = canonicalValue(frontmatter['description']); // null when absent
  return { title: title === undefined ? null : collapse(title), description, body: normaliseText(body), frontmatter: canonicalJson(frontmatter) };
}

export type NotePartsRead =
  /** `frontmatter` is absent for a file without a frontmatter block (plain text). */
  | { readonly ok: true; readonly parts: NoteParts; readonly frontmatter?: Readonly<Record<string, unknown>> }
  | { readonly ok: false; readonly findings: readonly Finding[] };

/** The SHA-256 of each part's JSON value: all a note hash needs of a note, under any watch set. */
export type PartDigests = Readonly<Record<WatchedPart, string>>;

/** The digests of a note's parts (computed once per parts object). */
export function partDigests(parts: NoteParts): PartDigests {
  let digests = digestsOf.get(parts);
  if (digests === undefined) {
    digests = Object.fromEntries(WATCHED_PARTS.map((part) => [part, sha256(JSON.stringify(parts[part]))])) as PartDigests;
    digestsOf.set(parts, digests);
  }
  return digests;
}

/** SHA-256 of the `[part, part digest]` pairs in `WATCHED_PARTS` order: one pass hashes a note under every watch set. */
export function hashParts(parts: NoteParts, watches: readonly WatchedPart[]): string {
  return hashDigests(partDigests(parts), watches);
}

/** The note hash from the parts' digests ({@link hashParts} without the parts). */
export function hashDigests(digests: PartDigests, watches: readonly WatchedPart[]): string {
  return sha256(JSON.stringify(WATCHED_PARTS.filter((part) => watches.includes(part)).map((part) => [part, digests[part]])));
}

const digestsOf = new WeakMap<NoteParts, PartDigests>();

/** The note hash a result records, over the parts `watches` names (none: the whole note); throws when the frontmatter is unreadable. */
export function noteHash(noteText: string, watches?: readonly WatchedPart[], file = 'note'): string {
  const extracted = noteParts(noteText, file);
  if (!extracted.ok) {
    const why = extracted.findings.map((finding) => finding.message).join('; ');
    throw new ReviewError('note-unreadable', `${file}: cannot hash a note whose frontmatter cannot be read: ${why}`, { findings: extracted.findings });
  }
  return hashParts(extracted.parts, watches === undefined || watches.length === 0 ? WATCHED_PARTS : watches);
}

/** The criterion hash a result records: SHA-256 of the whole criterion file's text, normalised like a note's body. */
export function criterionHash(text: string): string {
  return sha256(normaliseText(text));
}

/**
 * Bodies' and criteria's normal form: no BOM, LF, no trailing blanks, inner blank runs one space, blank-line runs one,
 * none at the ends; leading indentation kept (Markdown nesting and code).
 */
export function normaliseText(text: string): string {
  // One pass by index, a regex only on lines with a tab or two spaces: a third of split-and-replace's time (test/review/hash.test.ts).
  let source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (source.includes('\r')) source = source.replace(/\r\n?/g, '\n');
  const kept: string[] = [];
  let blank = false;
  for (let start = 0; start <= source.length;) {
    const newline = source.indexOf('\n', start);
    const end = newline === -1 ? source.length : newline;
    let last = end;
    while (last > start && isBlankChar(source.charCodeAt(last - 1))) last -= 1;
    if (last === start) {
      blank = kept.length > 0;
    } else {
      if (blank) kept.push('');
      blank = false;
      let body = start;
      while (body < last && isBlankChar(source.charCodeAt(body))) body += 1;
      const rest = source.slice(body, last);
      kept.push(source.slice(start, body) + (rest.includes('\t') || rest.includes('  ') ? rest.replace(/[ \t]{2,}|\t/g, ' ') : rest));
    }
    start = end + 1;
  }
  return kept.join('\n');
}

/** A space or a tab: the blanks `normaliseText` trims and collapses (other whitespace is text). */
function isBlankChar(code: number): boolean {
  return code === 32 || code === 9;
}

/** A parsed YAML value as canonical JSON: mapping keys sorted, strings whitespace-collapsed, list order kept. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(canonicalValue(value));
}

function canonicalValue(value: unknown): unknown {
  if (typeof value === 'string') return collapse(value);
  if (Array.isArray(value)) return value.map(canonicalValue);
  if (value instanceof Date) return value.toISOString();
  if (value !== null && typeof value === 'object') {
    // fromEntries defines own properties, so a `__proto__` key is data like any other.
    const keys = Object.keys(value).sort();
    return Object.fromEntries(keys.map((key) => [key, canonicalValue((value as Record<string, unknown>)[key])]));
  }
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  if (typeof value === 'bigint') return value.toString();
  return value ?? null;
}

/** Whitespace runs (newlines included) made one space, ends trimmed: for one-line fields. */
function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function describe(value: unknown): string {
  if (typeof value === 'string') return `the string \`${value}\``;
  if (Array.isArray(value)) return 'a list';
  return value === null ? 'null' : `a ${typeof value}`;
}
