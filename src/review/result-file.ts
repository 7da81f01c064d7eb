/**
 * Result files: one accepted review of one pair, kept as markdown at
 * `kb/reports/state/review/results/<note-path>/<criterion-id>.md` (see paths.ts). The frontmatter is
 * exactly the RESULT_KEYS, then — optional, so files written before spend was tracked stay valid —
 * the SPEND_KEYS; the body is the reviewer's text, verbatim. A file that breaks any of that is refused
 * with findings and is never fresh. Status reads thousands of these, so the writer's own form is read
 * on a fast path; anything else goes to the YAML parser, so a hand-edited file means what YAML says.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import YAML, { isMap, isPair, isScalar, LineCounter } from 'yaml';
import { writeFileAtomic } from '../fs/atomic.js';
import type { LaunchResult } from '../harness/launch-contract.js';
import { launchCost } from '../harness/prices.js';
import type { Finding } from '../kb/findings.js';
import { ReviewError } from './errors.js';
import { criterionIdProblem, notePathProblem, RESULTS_DIR, resultPath } from './paths.js';
import { isSafePlain, quickFrontmatter } from './quick-frontmatter.js';
import { isOutcome, OUTCOMES, type Outcome } from './result-line.js';

export interface ResultRecord {
  /** The note's repository-relative path: `kb/notes/x.md`. */
  readonly note: string;
  /** The criterion ID: a gate's `{lens}/{name}`, or a KB path for other criteria. */
  readonly criterion: string;
  /** The note hash (over the watched parts) of the text the worker was given. */
  readonly noteSha256: string;
  /** The criterion hash of the text the worker was given. */
  readonly criterionSha256: string;
  readonly outcome: Outcome;
  /** The worker profile that produced the review. */
  readonly profile: string;
  /** The model the harness recorded as used (the profile's model where the harness reports none). */
  readonly model: string;
  /** The run (sweep or pass) that accepted it. */
  readonly run: string;
  /** The launch that produced it, within the run. */
  readonly launch: string;
  /** The reviewer's text, ending in its result line. */
  readonly body: string;
  /** What producing it cost (its share of a bundle launch); absent in files written before spend was tracked. */
  readonly spend?: ResultSpend;
}

/** A result's cost and tokens: its launch's, or its equal share of a bundle launch's. */
export interface ResultSpend {
  /** US dollars; null when unknown (no harness report and no price for the model). */
  readonly costUsd: number | null;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWriteTokens: number;
}

/** A result's spend from the launch that produced it: its cost (the harness's, else the price table's) and tokens, shared equally among the `of` criteria it answered. */
export function resultSpend(launch: Pick<LaunchResult, 'model' | 'usage' | 'costUsd'>, of = 1): ResultSpend {
  const { costUsd } = launchCost(launch);
  const usage = launch.usage;
  return {
    costUsd: costUsd === null ? null : costUsd / of,
    inputTokens: (usage?.inputTokens ?? 0) / of,
    outputTokens: (usage?.outputTokens ?? 0) / of,
    cacheReadTokens: (usage?.cacheReadTokens ?? 0) / of,
    cacheWriteTokens: (usage?.cacheWriteTokens ?? 0) / of,
  };
}

/** The spend keys, in the order the writer puts them after the required ones, and the spend's field each fills. */
const SPEND_FIELDS = {
  cost_usd: 'costUsd',
  input_tokens: 'inputTokens',
  output_tokens: 'outputTokens',
  cache_read_tokens: 'cacheReadTokens',
  cache_write_tokens: 'cacheWriteTokens',
} as const;
type SpendKey = keyof typeof SPEND_FIELDS;
const SPEND_KEYS = Object.keys(SPEND_FIELDS) as SpendKey[];
const PLAIN_NUMBER = /^(?:0|[1-9][0-9]*)(?:\.[0-9]+)?$/;

/** A spend value as written: a plain decimal (never an exponent), `unknown` for an unknown cost. */
function spendValue(key: SpendKey, value: number | null): string {
  if (value === null) return 'unknown';
  return key === 'cost_usd' ? Number(value.toFixed(6)).toString() : String(Math.round(value));
}

/** Reads the spend keys a file has (all or none), or a problem per bad value. */
function readSpend(values: Partial<Record<SpendKey, unknown>>): { spend?: ResultSpend; problems: { key: SpendKey; message: string }[] } {
  const present = SPEND_KEYS.filter((key) => values[key] !== undefined);
  if (present.length === 0) return { problems: [] };
  const problems: { key: SpendKey; message: string }[] = [];
  const missing = SPEND_KEYS.filter((key) => values[key] === undefined);
  for (const key of missing) problems.push({ key, message: `missing key \`${key}\`: a result file has all of ${SPEND_KEYS.join(', ')} or none` });
  const spend: Record<string, number | null> = {};
  for (const key of present) {
    const raw = values[key];
    const number = typeof raw === 'number' ? raw : typeof raw === 'string' && PLAIN_NUMBER.test(raw) ? Number(raw) : undefined;
    if (key === 'cost_usd' && raw === 'unknown') spend[SPEND_FIELDS[key]] = null;
    else if (number === undefined || !Number.isFinite(number) || number < 0 || (key !== 'cost_usd' && !Number.isInteger(number))) {
      problems.push({
        key,
        message: `\`${key}\` must be ${key === 'cost_usd' ? 'a non-negative number of US dollars or `unknown`' : 'a non-negative whole number of tokens'}; found ${describe(raw)}`,
      });
    } else spend[SPEND_FIELDS[key]] = number;
  }
  return problems.length > 0 ? { problems } : { spend: spend as unknown as ResultSpend, problems };
}

/** The frontmatter keys, in the order the writer puts them, and the record's field each fills. */
const RESULT_FIELDS = {
  note: 'note',
  criterion: 'criterion',
  note_sha256: 'noteSha256',
  criterion_sha256: 'criterionSha256',
  outcome: 'outcome',
  profile: 'profile',
  model: 'model',
  run: 'run',
  launch: 'launch',
} as const;
type ResultKey = keyof typeof RESULT_FIELDS;
const RESULT_KEYS = Object.keys(RESULT_FIELDS) as ResultKey[];

export type ResultParse = { readonly ok: true; readonly record: ResultRecord } | { readonly ok: false; readonly findings: readonly Finding[] };

const HEX64 = /^[0-9a-f]{64}$/;

const recordOf = (values: Record<ResultKey, string>, body: string, spend: ResultSpend | undefined): ResultRecord =>
  ({
    ...Object.fromEntries(RESULT_KEYS.map((key) => [RESULT_FIELDS[key], values[key]])),
    body,
    ...(spend !== undefined && { spend }),
  }) as unknown as ResultRecord;

/** Renders a record as a result file's text; `writeResultFile` checks it parses back before writing. */
export function formatResultFile(record: ResultRecord): string {
  const lines = RESULT_KEYS.map((key) => `${key}: ${yamlString(record[RESULT_FIELDS[key]])}`);
  const { spend } = record;
  if (spend) lines.push(...SPEND_KEYS.map((key) => `${key}: ${spendValue(key, spend[SPEND_FIELDS[key]])}`));
  // The blank line after the frontmatter is the writer's separator; the parser drops exactly one.
  return `---\n${lines.join('\n')}\n---\n\n${record.body}`;
}

/**
 * Reads a result file's text into its record, or refuses it with every finding: a missing or extra key,
 * a value of the wrong type, a digest that is not 64 lowercase hex digits, an unknown outcome, or a
 * note/criterion that does not match the file's own path (`file`, repository-relative: `kb/reports/state/review/results/…`).
 */
export function parseResultFile(text: string, file: string): ResultParse {
  return quickParse(text, file) ?? checkResultFile(text, file);
}

/** A file exactly as the writer writes it, accepted without building findings; anything else is left to `checkResultFile`. */
function quickParse(text: string, file: string): ResultParse | undefined {
  if (!text.startsWith('---\n') || text.includes('\r')) return undefined;
  const close = text.indexOf('\n---\n', 3);
  if (close === -1) return undefined;
  const values: Partial<Record<ResultKey, string>> = {};
  let at = 4;
  for (const key of RESULT_KEYS) {
    const eol = text.indexOf('\n', at);
    if (eol === -1 || eol > close || !text.startsWith(`${key}: `, at)) return undefined;
    const raw = text.slice(at + key.length + 2, eol);
    if (!isSafePlain(raw)) return undefined;
    values[key] = raw;
    at = eol + 1;
  }
  // The spend keys, as the writer puts them: all of them in order, each a plain number (`unknown` for a cost).
  let spend: ResultSpend | undefined;
  if (at !== close + 1) {
    const read: Partial<Record<SpendKey, string>> = {};
    for (const key of SPEND_KEYS) {
      const eol = text.indexOf('\n', at);
      if (eol === -1 || eol > close || !text.startsWith(`${key}: `, at)) return undefined;
      read[key] = text.slice(at + key.length + 2, eol);
      at = eol + 1;
    }
    spend = readSpend(read).spend;
    if (spend === undefined) return undefined;
  }
  if (at !== close + 1) return undefined;
  const { note, criterion, note_sha256, criterion_sha256, outcome } = values as Record<ResultKey, string>;
  if (!HEX64.test(note_sha256) || !HEX64.test(criterion_sha256) || !isOutcome(outcome)) return undefined;
  if (repositoryRelative(file.replace(/\\/g, '/')) !== resultPath(note, criterion)) return undefined;
  if (notePathProblem(note) !== undefined || criterionIdProblem(criterion) !== undefined) return undefined;
  const body = text.slice(close + 5);
  return { ok: true, record: recordOf(values as Record<ResultKey, string>, body.charCodeAt(0) === 10 ? body.slice(1) : body, spend) };
}

function checkResultFile(text: string, file: string): ResultParse {
  const shown = file.replace(/\\/g, '/');
  const findings: Finding[] = [];
  const fail = (rule: string, message: string, line?: number): void => {
    findings.push({ file: shown, ...(line === undefined ? {} : { line }), rule, severity: 'fail', message });
  };
  let source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (source.includes('\r')) source = source.replace(/\r\n/g, '\n');
  if (!source.startsWith('---\n')) {
    fail('result-frontmatter', 'a result file must start with a `---` frontmatter line', 1);
    return { ok: false, findings };
  }
  const close = source.indexOf('\n---\n', 3);
  const closeAtEnd = close === -1 && source.endsWith('\n---') ? source.length - 4 : -1;
  const end = close !== -1 ? close : closeAtEnd;
  if (end === -1) {
    fail('result-frontmatter', 'the frontmatter opened on line 1 is never closed by a `---` line', 1);
    return { ok: false, findings };
  }
  const yamlText = source.slice(4, end + 1);
  let body = close !== -1 ? source.slice(close + 5) : '';
  if (body.startsWith('\n')) body = body.slice(1);

  const read = readFrontmatter(yamlText);
  if (!read.ok) {
    for (const problem of read.problems) fail('result-yaml', problem.message, problem.line);
    return { ok: false, findings };
  }
  const { data, lines } = read;
  const lineOf = (key: string): number | undefined => lines.get(key);

  for (const key of Object.keys(data)) {
    if (!Object.hasOwn(RESULT_FIELDS, key) && !Object.hasOwn(SPEND_FIELDS, key)) {
      fail(
        'result-extra-key',
        `unexpected key \`${key}\`; a result file has exactly ${RESULT_KEYS.join(', ')} (and optionally ${SPEND_KEYS.join(', ')})`,
        lineOf(key),
      );
    }
  }
  const spendRead = readSpend(Object.fromEntries(SPEND_KEYS.map((key) => [key, data[key]])));
  for (const problem of spendRead.problems) fail('result-spend', problem.message, lineOf(problem.key));
  const value: Partial<Record<ResultKey, string>> = {};
  for (const key of RESULT_KEYS) {
    if (!Object.hasOwn(data, key)) {
      fail('result-missing-key', `missing key \`${key}\``);
      continue;
    }
    const raw = data[key];
    if (typeof raw !== 'string') {
      fail('result-type', `\`${key}\` must be a string, found ${describe(raw)}`, lineOf(key));
      continue;
    }
    if (raw.trim() === '') {
      fail('result-type', `\`${key}\` must not be empty`, lineOf(key));
      continue;
    }
    value[key] = raw;
  }
  for (const key of ['note_sha256', 'criterion_sha256'] as const) {
    const digest = value[key];
    if (digest !== undefined && !HEX64.test(digest)) {
      fail('result-hex', `\`${key}\` must be a SHA-256 digest, 64 lowercase hex digits; found \`${truncate(digest, 80)}\``, lineOf(key));
      delete value[key];
    }
  }
  if (value.outcome !== undefined && !isOutcome(value.outcome)) {
    fail('result-outcome', `\`outcome\` must be one of ${OUTCOMES.join(', ')}; found \`${truncate(value.outcome, 40)}\``, lineOf('outcome'));
    delete value.outcome;
  }
  const noteProblem = value.note === undefined ? undefined : notePathProblem(value.note);
  if (noteProblem !== undefined) fail('result-path', noteProblem, lineOf('note'));
  const criterionProblem = value.criterion === undefined ? undefined : criterionIdProblem(value.criterion);
  if (criterionProblem !== undefined) fail('result-path', criterionProblem, lineOf('criterion'));
  if (value.note !== undefined && value.criterion !== undefined && noteProblem === undefined && criterionProblem === undefined) {
    const expected = resultPath(value.note, value.criterion);
    const actual = repositoryRelative(shown);
    if (actual !== expected) {
      fail('result-path', `the file's note \`${value.note}\` and criterion \`${value.criterion}\` belong at ${expected}, not here`, lineOf('note'));
    }
  }
  if (findings.length > 0) return { ok: false, findings };
  return { ok: true, record: recordOf(value as Record<ResultKey, string>, body, spendRead.spend) };
}

export interface WriteOptions {
  /** Flush the file and its directory to disk before returning. Default true. */
  readonly fsync?: boolean;
}

/** Writes a pair's result file atomically, so a reader sees the old result or the new one; refuses a record that would not parse back. */
export async function writeResultFile(checkoutRoot: string, record: ResultRecord, options: WriteOptions = {}): Promise<string> {
  const noteProblem = notePathProblem(record.note);
  const criterionProblem = criterionIdProblem(record.criterion);
  if (noteProblem !== undefined || criterionProblem !== undefined) {
    throw new ReviewError(
      'invalid-record',
      `cannot write a result for ${record.note} × ${record.criterion}: ${[noteProblem, criterionProblem].filter(Boolean).join('; ')}`,
    );
  }
  const relative = resultPath(record.note, record.criterion);
  const text = formatResultFile(record);
  const check = parseResultFile(text, relative);
  if (!check.ok) {
    throw new ReviewError('invalid-record', `refusing to write ${relative}: ${check.findings.map((finding) => finding.message).join('; ')}`, {
      findings: check.findings,
    });
  }
  await writeFileAtomic(path.join(checkoutRoot, ...relative.split('/')), text, { fsync: options.fsync ?? true });
  return relative;
}

/** Reads and parses the result file of a pair; `absent` when there is none. */
export async function readResultFile(
  checkoutRoot: string,
  note: string,
  criterion: string,
): Promise<ResultParse | { readonly ok: false; readonly absent: true }> {
  const relative = resultPath(note, criterion);
  let text: string;
  try {
    text = await readFile(path.join(checkoutRoot, ...relative.split('/')), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { ok: false, absent: true };
    throw error;
  }
  return parseResultFile(text, relative);
}

function repositoryRelative(file: string): string {
  if (file.startsWith(`${RESULTS_DIR}/`)) return file;
  const at = file.indexOf(`/${RESULTS_DIR}/`);
  return at === -1 ? file : file.slice(at + 1);
}

/** A string as the writer writes it: plain when YAML reads it back unchanged, else JSON-quoted with YAML's line breaks escaped. */
function yamlString(value: string): string {
  if (isSafePlain(value)) return value;
  return JSON.stringify(value).replace(/[\u007f-\u009f\u2028\u2029\ufeff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

type FrontmatterRead =
  | { readonly ok: true; readonly data: Record<string, unknown>; readonly lines: Map<string, number> }
  | { readonly ok: false; readonly problems: readonly { readonly line?: number; readonly message: string }[] };

/** The frontmatter's mapping and each key's file line (the frontmatter starts on line 2): without YAML when `quickFrontmatter` can. */
function readFrontmatter(yamlText: string): FrontmatterRead {
  const rows = yamlText.split('\n');
  if (rows.at(-1) === '') rows.pop();
  const quick = quickFrontmatter(rows);
  if (quick !== undefined) return { ok: true, data: quick, lines: new Map(rows.map((row, index) => [row.slice(0, row.indexOf(':')), index + 2])) };
  const lineCounter = new LineCounter();
  const doc = YAML.parseDocument(yamlText, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const where = (offset: number | undefined): number | undefined => (offset === undefined ? undefined : lineCounter.linePos(offset).line + 1);
  if (doc.errors.length > 0) {
    return {
      ok: false,
      problems: doc.errors.map((error) => ({
        line: where(error.pos[0]),
        message: `malformed YAML frontmatter: ${(error.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '')}`,
      })),
    };
  }
  if (!isMap(doc.contents)) {
    return {
      ok: false,
      problems: [{ line: 2, message: `the frontmatter must be a mapping of the result keys, found ${doc.contents === null ? 'nothing' : 'something else'}` }],
    };
  }
  const lines = new Map<string, number>();
  for (const pair of doc.contents.items) {
    if (isPair(pair) && isScalar(pair.key)) {
      const line = where(pair.key.range?.[0]);
      if (line !== undefined) lines.set(String(pair.key.value), line);
    }
  }
  try {
    return { ok: true, data: doc.toJS({ maxAliasCount: 10 }) as Record<string, unknown>, lines };
  } catch (error) {
    return { ok: false, problems: [{ message: `malformed YAML frontmatter: ${(error as Error).message}` }] };
  }
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  if (value instanceof Date) return 'a date';
  return `a ${typeof value}`;
}

function truncate(text: string, length: number): string {
  return text.length > length ? `${text.slice(0, length)}…` : text;
}
