/**
 * Notes: a markdown file with YAML frontmatter, read into the document model that types validate:
 * `{frontmatter, body, headings, links, body_dates}`. Parsing never throws on bad input: every defect
 * of the file itself (not UTF-8, binary, malformed or unclosed frontmatter) is a finding with the file
 * and line, and a file without a frontmatter block is plain text: nothing to validate.
 */
import YAML, { isMap, isPair, isScalar, isSeq, LineCounter, type Node as YamlNode } from 'yaml';
import type { Finding } from './findings.js';

export interface DocumentModel {
  frontmatter: Record<string, unknown>;
  body: string;
  /** Markdown ATX heading lines as written, outside code fences: `"## Test"`. */
  headings: string[];
  /** Targets of inline links and images in the body, outside code. */
  links: string[];
  /** ISO dates (`YYYY-MM-DD`) appearing in the body, first occurrence order, unique. */
  body_dates: string[];
}

export interface Note {
  readonly file: string;
  readonly model: DocumentModel;
  /** The first `# ` heading of the body. */
  readonly title: string | undefined;
  /** Frontmatter `description`, when it is a string. */
  readonly description: string | undefined;
  /** 1-based line of the file where the body starts. */
  readonly bodyLine: number;
  /** 1-based file line of each frontmatter node, keyed by JSON Pointer (`/frontmatter/tags/0`). */
  readonly lines: Readonly<Record<string, number>>;
}

export type NoteParse =
  | { readonly kind: 'note'; readonly note: Note; readonly findings: Finding[] }
  | { readonly kind: 'text'; readonly text: string; readonly title: string | undefined; readonly findings: Finding[] }
  | { readonly kind: 'unreadable'; readonly findings: Finding[] };

/** Files above this size still validate but get a warning: a note this big is almost always an accident. */
export const LARGE_NOTE_BYTES = 1024 * 1024;

/** Git's heuristic: a NUL byte in the first 8000 bytes means binary. */
const BINARY_SNIFF_BYTES = 8000;

/** Reads a note's bytes into its document model, or into findings saying why it cannot be read. */
export function parseNote(bytes: Uint8Array, file: string): NoteParse {
  const decoded = decodeText(bytes, file);
  if (decoded.kind === 'unreadable') return decoded;
  const { text, findings } = decoded;

  if (text.trim() === '') {
    findings.push({ file, rule: 'empty-file', severity: 'warn', message: 'file is empty: nothing to validate' });
    return { kind: 'text', text, title: undefined, findings };
  }

  const lines = text.split('\n');
  if (!isDelimiter(lines[0])) return { kind: 'text', text, title: noteTitle(extractHeadings(text)), findings };
  const unreadable = (line: number, rule: string, message: string): NoteParse => {
    findings.push({ file, line, rule, severity: 'fail', message });
    return { kind: 'unreadable', findings };
  };
  const close = lines.findIndex((line, index) => index > 0 && line.startsWith('---'));
  if (close === -1) return unreadable(1, 'frontmatter-unclosed', 'frontmatter opened on line 1 is never closed: add a line `---` after the YAML');
  if (!isDelimiter(lines[close])) {
    const found = truncate(lines[close] ?? '', 40);
    return unreadable(close + 1, 'frontmatter-delimiter', `frontmatter closing line must be exactly \`---\`, found \`${found}\``);
  }

  // The YAML starts with the rest of line 1, so its line N is file line N; a block of only blank and comment lines is an empty mapping.
  const source = close > 1 ? `\n${lines.slice(1, close).join('\n')}` : '';
  const yaml = source.replace(/^\s*#[^\n]+/gm, '').trim() === '' ? { data: {}, lines: {}, warnings: [] } : readYaml(source);
  if ('problems' in yaml) {
    for (const problem of yaml.problems) findings.push({ file, rule: 'yaml', severity: 'fail', ...problem });
    return { kind: 'unreadable', findings };
  }
  for (const warning of yaml.warnings) findings.push({ file, rule: 'yaml', severity: 'warn', ...warning });
  const data = yaml.data ?? {}; // an empty document (`~`, `null`) is no fields
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    return unreadable(2, 'frontmatter-not-mapping', `frontmatter must be a YAML mapping of fields, found ${describeValue(data)}`);
  }

  const frontmatter = data as Record<string, unknown>;
  const body = lines.slice(close + 1).join('\n');
  const headings = extractHeadings(body);
  const note: Note = {
    file,
    model: { frontmatter, body, headings, links: extractLinks(body), body_dates: extractBodyDates(body) },
    title: noteTitle(headings),
    description: typeof frontmatter['description'] === 'string' ? frontmatter['description'] : undefined,
    bodyLine: close + 2,
    lines: yaml.lines,
  };
  return { kind: 'note', note, findings };
}

type Decoded = { kind: 'decoded'; text: string; findings: Finding[] } | { kind: 'unreadable'; findings: Finding[] };

/** Decodes UTF-8 strictly: binary and non-UTF-8 files are findings, a BOM and CRLF endings are warnings. */
export function decodeText(bytes: Uint8Array, file: string): Decoded {
  const findings: Finding[] = [];
  const unreadable = (offset: number, rule: string, message: (line: number, column: number) => string): Decoded => {
    const { line, column } = positionOf(bytes, offset);
    findings.push({ file, line, rule, severity: 'fail', message: message(line, column) });
    return { kind: 'unreadable', findings };
  };
  const nul = bytes.subarray(0, BINARY_SNIFF_BYTES).indexOf(0);
  if (nul !== -1) return unreadable(nul, 'binary-file', () => `binary file (NUL byte at offset ${nul}): a note must be UTF-8 text`);
  // The BOM is kept to keep the text's offsets the bytes', and dropped once it is reported.
  let text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);
  const invalid = firstInvalidUtf8(bytes, text);
  if (invalid !== -1) {
    const byte = (bytes[invalid] ?? 0).toString(16).padStart(2, '0');
    return unreadable(invalid, 'encoding', (line, column) => `not valid UTF-8: byte 0x${byte} at line ${line}, column ${column}; save the file as UTF-8`);
  }
  const warn = (rule: string, message: string, line?: number) => findings.push({ file, ...(line !== undefined && { line }), rule, severity: 'warn', message });
  if (bytes.length > LARGE_NOTE_BYTES) {
    const size = (bytes.length / (1024 * 1024)).toFixed(1);
    warn('large-file', `file is ${size} MiB; notes over ${LARGE_NOTE_BYTES / (1024 * 1024)} MiB are usually pasted output`);
  }
  if (text.startsWith('\ufeff')) {
    text = text.slice(1);
    warn(
      'bom',
      'file starts with a UTF-8 byte-order mark; it was ignored, but tools that expect `---` on the first byte will not see the frontmatter: remove it',
      1,
    );
  }
  const crlf = text.indexOf('\r\n');
  if (crlf !== -1) {
    warn('crlf', 'file uses CRLF line endings; it was read as LF, convert it to LF', countNewlines(text, crlf) + 1);
    text = text.replace(/\r\n/g, '\n');
  }
  return { kind: 'decoded', text, findings };
}

/** The note's title is its first `# ` heading, the part a `title` watch hashes. */
export function noteTitle(headings: readonly string[]): string | undefined {
  for (const heading of headings) {
    if (heading.startsWith('# ')) return heading.slice(2);
  }
  return undefined;
}

const HEADING = /^ {0,3}(#{1,6})[ \t]+(.*?)[ \t]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** Heading lines outside fenced code, normalised to `#… text`, so schemas can require sections. */
export function extractHeadings(body: string): string[] {
  const headings: string[] = [];
  forEachProseLine(body, (line) => {
    const match = HEADING.exec(line);
    if (match) {
      const text = (match[2] ?? '').replace(/[ \t]+#+$/, '');
      if (text !== '') headings.push(`${match[1]} ${text}`);
    }
  });
  return headings;
}

const INLINE_CODE = /``[^\n]*?``|`[^`\n]+`/g;
const LINK = /!?\[((?:[^[\]]|\[[^[\]]*\])*)\]\(\s*(<[^<>\n]*>|(?:[^\s()]|\([^\s()]*\))+)(?:\s+(?:"[^"\n]*"|'[^'\n]*'|\([^()\n]*\)))?\s*\)/g;

/** Link targets of `[text](target)` and images in the body, code excluded, for link checks and relations. */
export function extractLinks(body: string): string[] {
  return extractLinkSites(body).map((site) => site.target);
}

export interface LinkSite {
  readonly target: string;
  /** 0-based line of the body where the target is written. */
  readonly bodyLine: number;
}

/** The links of `extractLinks` with the body line each target is on, so a link finding can point at it. */
export function extractLinkSites(body: string): LinkSite[] {
  const prose: string[] = [];
  const keep = (line: string) => prose.push(line);
  forEachProseLine(body, keep, () => keep(''));
  const text = prose.join('\n').replace(INLINE_CODE, (code) => ' '.repeat(code.length));
  const sites: LinkSite[] = [];
  for (const match of text.matchAll(LINK)) {
    let target = match[2] ?? '';
    if (target.startsWith('<') && target.endsWith('>')) target = target.slice(1, -1);
    if (target === '') continue;
    const at = match.index + match[0].lastIndexOf('](', match[0].length - (match[2] ?? '').length);
    sites.push({ target, bodyLine: countNewlines(text, at) });
  }
  return sites;
}

const BODY_DATE = /\b\d{4}-\d{2}-\d{2}\b/g;

/** ISO dates in the body, so a schema can check they are real dates (`format: date`). */
export function extractBodyDates(body: string): string[] {
  return [...new Set(body.match(BODY_DATE) ?? [])];
}

/** Calls `onLine` for each line outside fenced code blocks (and `onFenced` for those inside). */
export function forEachProseLine(body: string, onLine: (line: string, index: number) => void, onFenced?: (line: string, index: number) => void): void {
  let fence: string | undefined;
  const lines = body.split('\n');
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index] ?? '';
    const marker = FENCE.exec(line);
    if (fence === undefined) {
      if (marker) {
        fence = marker[1] ?? '```';
        onFenced?.(line, index);
      } else {
        onLine(line, index);
      }
    } else {
      onFenced?.(line, index);
      if (marker && (marker[1] ?? '')[0] === fence[0] && (marker[1] ?? '').length >= fence.length && line.trim() === marker[1]) {
        fence = undefined;
      }
    }
  }
}

/** A YAML problem as a finding body: where it is and what it is. */
interface YamlProblem {
  line?: number;
  message: string;
}

/**
 * The frontmatter's YAML: the 1.2 core schema (dates stay strings, `yes` stays a string), duplicate
 * keys refused, and every node's line recorded so schema findings can point at the field.
 */
function readYaml(source: string): { data: unknown; lines: Record<string, number>; warnings: YamlProblem[] } | { problems: YamlProblem[] } {
  const lineCounter = new LineCounter();
  const doc = YAML.parseDocument(source, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const where = (offset: number | undefined): number | undefined => (offset === undefined ? undefined : lineCounter.linePos(offset).line);
  if (doc.errors.length > 0) {
    return { problems: doc.errors.map((error) => ({ line: where(error.pos[0]), message: `malformed YAML frontmatter: ${yamlMessage(error.message)}` })) };
  }
  const warnings = doc.warnings.map((warning) => ({ line: where(warning.pos[0]), message: `YAML: ${yamlMessage(warning.message)}` }));
  const lines: Record<string, number> = {};
  recordLines(doc.contents, '/frontmatter', lines, where);
  try {
    return { data: doc.toJS({ maxAliasCount: 100 }), lines, warnings };
  } catch (error) {
    return { problems: [{ message: `malformed YAML frontmatter: ${(error as Error).message}` }] };
  }
}

function recordLines(node: unknown, pointer: string, lines: Record<string, number>, where: (offset: number | undefined) => number | undefined): void {
  const entries: [string, unknown, unknown][] = isMap(node)
    ? node.items.filter(isPair).map((pair) => [isScalar(pair.key) ? String(pair.key.value) : String(pair.key), pair.key, pair.value])
    : isSeq(node)
      ? node.items.map((item, index) => [String(index), item, item])
      : [];
  for (const [key, at, value] of entries) {
    const child = `${pointer}/${escapePointer(key)}`;
    const line = where((at as YamlNode | null)?.range?.[0]);
    if (line !== undefined) lines[child] = line;
    recordLines(value, child, lines, where);
  }
}

/** Escapes one JSON Pointer segment (RFC 6901), so field names with `/` or `~` still address their field. */
export function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** The line of the nearest recorded node at or above `pointer`, for findings that name a field. */
export function lineOf(note: Note, pointer: string): number | undefined {
  let current = pointer;
  while (current.startsWith('/frontmatter')) {
    const line = note.lines[current];
    if (line !== undefined) return line;
    if (current === '/frontmatter') return 1;
    current = current.slice(0, current.lastIndexOf('/'));
  }
  return undefined;
}

function yamlMessage(message: string): string {
  // yaml appends " at line N, column M" (with prettyErrors) or the raw text; keep the first line.
  return (message.split('\n')[0] ?? message).replace(/ at line \d+, column \d+:?$/, '');
}

function isDelimiter(line: string | undefined): boolean {
  return line !== undefined && line.trimEnd() === '---';
}

function describeValue(value: unknown): string {
  if (value === null || value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  return `a ${typeof value}`;
}

function truncate(text: string, length: number): string {
  return text.length > length ? `${text.slice(0, length)}…` : text;
}

function countNewlines(text: string, end: number): number {
  let count = 0;
  for (let index = text.indexOf('\n'); index !== -1 && index < end; index = text.indexOf('\n', index + 1)) count += 1;
  return count;
}

function positionOf(bytes: Uint8Array, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let index = 0; index < offset; index += 1) {
    if (bytes[index] === 0x0a) {
      line += 1;
      lineStart = index + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

/** Offset of the first byte that is not part of a well-formed UTF-8 sequence, or -1: the first U+FFFD the decoder put where the bytes do not spell one. */
function firstInvalidUtf8(bytes: Uint8Array, text: string): number {
  if (!text.includes('\ufffd')) return -1;
  let offset = 0;
  for (const char of text) {
    const point = char.codePointAt(0) ?? 0;
    if (point === 0xfffd && !(bytes[offset] === 0xef && bytes[offset + 1] === 0xbf && bytes[offset + 2] === 0xbd)) return offset;
    offset += point < 0x80 ? 1 : point < 0x800 ? 2 : point < 0x10000 ? 3 : 4;
  }
  return -1;
}
