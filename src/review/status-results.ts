/**
 * The results tree as review status reads it, each file once: a selected pair's result judged fresh,
 * stale or malformed in place; any other file an orphan (its note or criterion gone, or no longer
 * applicable), a stray (not a readable result), or a valid result outside the selection.
 */
import { access } from 'node:fs/promises';
import path from 'node:path';
import type { Finding } from '../kb/findings.js';
import { inapplicability, loadCriterion, type Criterion, type CriterionLoad, type GateCatalog } from './criteria.js';
import { readBytes, walkFiles } from './files.js';
import { sha256 } from '../fs/digest.js';
import { isPathCriterion, pairOfResultPath, RESULTS_DIR } from './paths.js';
import { parseResultFile, type ResultRecord } from './result-file.js';
import type { CachedResult, ScannedFile, StatusCache } from './status-cache.js';
import { EXCLUDED_DIRS, type NoteIndex } from './reviewable.js';
import type { WatchedPart } from './hash.js';

export type PairKind = 'gate' | 'type' | 'collection';

export type PairState = 'fresh' | 'stale' | 'missing' | 'malformed';
export type StaleReason = 'note' | 'criterion' | 'both';

/** What a pair's result file recorded, for display and for deciding what changed: its record's hashes, outcome and provenance. */
export type RecordedResult = Pick<ResultRecord, 'noteSha256' | 'criterionSha256' | 'outcome' | 'profile' | 'model' | 'run' | 'launch'>;

export interface PairStatus {
  /** The note's repository-relative path. */
  readonly note: string;
  /** The criterion ID (a gate's `{lens}/{name}`, or a type spec's or COLLECTION.md's KB path). */
  readonly criterion: string;
  readonly kind: PairKind;
  /** The criterion's file, repository-relative. */
  readonly criterionPath: string;
  readonly lens: string | undefined;
  /** A report criterion's result line is `Result: report`; gates are verdict criteria. */
  readonly reportCriterion: boolean;
  /** The note parts the note hash covers. */
  readonly watches: readonly WatchedPart[];
  /** The note hash now, over the watched parts. */
  readonly noteSha256: string;
  /** The criterion hash now. */
  readonly criterionSha256: string;
  /** The pair's result file, repository-relative. */
  readonly resultPath: string;
  /** `malformed`: a result file is there but refused (its findings say why); it is never fresh, and a sweep asks the pair again. */
  readonly status: PairState;
  /** Which recorded hash no longer matches, for a stale pair. */
  readonly staleBecause?: StaleReason;
  /** The recorded result, when the file parses. */
  readonly result?: RecordedResult;
  /** Why a malformed result was refused. */
  readonly findings?: readonly Finding[];
}

export type OrphanReason = 'note-gone' | 'criterion-gone' | 'not-applicable';

/** A result file whose pair is gone: `--prune-orphans` deletes it. */
export interface Orphan {
  readonly resultPath: string;
  readonly note: string;
  readonly criterion: string;
  readonly reason: OrphanReason;
  /** One line saying what is gone or why the pair no longer applies. */
  readonly detail: string;
  /** SHA-256 of the file's text when it was classified: pruning deletes it only if unchanged. */
  readonly fileSha256: string;
}

/** A file in the results tree that is not a readable result and not at a selected pair's path: listed, never pruned. */
export interface StrayFile {
  readonly path: string;
  readonly findings: readonly Finding[];
}

/** A pair's record while status judges it. */
export type Judged = { -readonly [K in keyof PairStatus]: PairStatus[K] };

/** What the walk found besides the selected pairs' results, each list sorted by path. */
export interface ResultsScan {
  orphans: Orphan[];
  strays: StrayFile[];
  /** Valid results outside the selection. */
  outside: number;
}

/** What the walk reads against: the selected pairs by result path, which other pairs are selected, the notes and gates. */
export interface ScanContext {
  readonly root: string;
  readonly pending: ReadonlyMap<string, Judged>;
  readonly selected: (note: string, criterion: string) => boolean;
  readonly index: NoteIndex;
  readonly catalog: GateCatalog;
  readonly cache: StatusCache | undefined;
}

/** Walks the results tree once (through the status cache where a file's stat is unchanged), judging and classifying each file. */
export async function scanResults({ root, pending, selected, index, catalog, cache }: ScanContext): Promise<ResultsScan> {
  const found: ResultsScan = { orphans: [], strays: [], outside: 0 };
  // Results whose pair is not selected, to classify once the walk is done.
  const unpaired: { file: string; text: string; record: ResultRecord }[] = [];
  const visit = (file: string, scanned: ScannedFile | undefined, kept: CachedResult | undefined): void => {
    const pair = pending.get(file);
    if (pair !== undefined && kept !== undefined) return judgeResult(pair, kept);
    const derived = pair ?? pairOfResultPath(file);
    if (derived === undefined) {
      const message = `not a result file: results are ${RESULTS_DIR}/<note path below kb/>/<criterion ID>.md`;
      found.strays.push({ path: file, findings: [{ file, rule: 'result-path', severity: 'fail', message }] });
      return;
    }
    if (pair === undefined && !selected(derived.note, derived.criterion)) {
      found.outside += 1;
      return;
    }
    const text = readBytes(root, file, scanned === undefined || cache === undefined ? undefined : (fd) => cache.opened(scanned, fd))?.toString('utf8');
    if (text === undefined) return; // deleted since the walk
    const parsed = parseResultFile(text, file);
    if (pair === undefined) {
      if (parsed.ok) unpaired.push({ file, text, record: parsed.record });
      else found.strays.push({ path: file, findings: parsed.findings });
    } else if (!parsed.ok) {
      setState(pair, 'malformed', undefined, undefined, parsed.findings);
    } else {
      const result = recorded(parsed.record);
      if (scanned !== undefined) cache?.remember(scanned, result);
      judgeResult(pair, result);
    }
  };
  if (cache === undefined) for (const file of walkFiles(root, RESULTS_DIR)) visit(file, undefined, undefined);
  else cache.scan(RESULTS_DIR, (scanned, kept) => visit(scanned.path, scanned, kept));
  const criteria = new CriterionCache(root, catalog.gates, catalog.unusable);
  for (const { file, text, record } of unpaired) {
    const orphan = await classify(record, index, criteria);
    if (orphan === undefined) found.outside += 1;
    else found.orphans.push({ ...orphan, resultPath: file, note: record.note, criterion: record.criterion, fileSha256: sha256(text) });
  }
  found.orphans.sort((a, b) => byCodePoint(a.resultPath, b.resultPath));
  found.strays.sort((a, b) => byCodePoint(a.path, b.path));
  return found;
}

/** Judges a pair by its parsed result: malformed when the outcome is of the other kind, else fresh or stale by the hashes. */
function judgeResult(pair: Judged, result: CachedResult): void {
  const kindMismatch = pair.reportCriterion !== (result.outcome === 'report');
  if (kindMismatch) {
    const message = pair.reportCriterion
      ? `outcome \`${result.outcome}\` for a report criterion, whose outcome is \`report\``
      : `outcome \`report\` for a verdict criterion, whose outcome is pass, warn or fail`;
    setState(pair, 'malformed', undefined, result, [{ file: pair.resultPath, rule: 'result-outcome', severity: 'fail', message }]);
    return;
  }
  const noteChanged = result.noteSha256 !== pair.noteSha256;
  const criterionChanged = result.criterionSha256 !== pair.criterionSha256;
  if (!noteChanged && !criterionChanged) setState(pair, 'fresh', undefined, result);
  else setState(pair, 'stale', noteChanged && criterionChanged ? 'both' : noteChanged ? 'note' : 'criterion', result);
}

/** Sets a pair's state; the optional fields are set only when there is a value (absent, not undefined, otherwise). */
function setState(pair: Judged, status: PairState, staleBecause?: StaleReason, result?: RecordedResult, findings?: readonly Finding[]): void {
  pair.status = status;
  if (staleBecause !== undefined) pair.staleBecause = staleBecause;
  if (result !== undefined) pair.result = result;
  if (findings !== undefined) pair.findings = findings;
}

function recorded(record: ResultRecord): RecordedResult {
  const { noteSha256, criterionSha256, outcome, profile, model, run, launch } = record;
  return { noteSha256, criterionSha256, outcome, profile, model, run, launch };
}

/** Whether a parsed result outside the selected pairs is an orphan (and why), or a valid result of another pair. */
async function classify(record: ResultRecord, index: NoteIndex, criteria: CriterionCache): Promise<{ reason: Orphan['reason']; detail: string } | undefined> {
  const note = index.notes.get(record.note);
  const criterion = await criteria.get(record.criterion);
  const noteExists =
    note !== undefined ||
    index.files.has(record.note) ||
    (EXCLUDED_DIRS.some((dir) => record.note.startsWith(`${dir}/`)) && (await criteria.exists(record.note)));
  if (!noteExists) {
    const also = !criterion.ok && criterion.reason === 'gone' ? `; its criterion ${record.criterion} is gone too` : '';
    return { reason: 'note-gone', detail: `note ${record.note} does not exist${also}` };
  }
  if (!criterion.ok) {
    if (criterion.reason === 'invalid') return undefined; // a broken gate is a problem to fix, not a reason to delete its results
    return { reason: 'criterion-gone', detail: criterion.message };
  }
  if (index.unreadable.has(record.note)) return undefined; // cannot decide until the note reads again
  if (note === undefined) {
    return {
      reason: 'not-applicable',
      detail: `note ${record.note} is not reviewable: ${index.notReviewable.get(record.note) ?? 'it is in a folder review skips'}`,
    };
  }
  const why = inapplicability(criterion.criterion, note);
  if (why !== undefined) return { reason: 'not-applicable', detail: `${record.criterion} no longer applies: ${why}` };
  return undefined;
}

/** Criteria by ID, each loaded once per status run (results name the same few criteria thousands of times). */
class CriterionCache {
  private readonly loads = new Map<string, Promise<CriterionLoad>>();
  private readonly files = new Map<string, Promise<boolean>>();

  constructor(
    private readonly root: string,
    gates: readonly Criterion[],
    private readonly unusable: ReadonlySet<string>,
  ) {
    for (const gate of gates) this.loads.set(gate.id, Promise.resolve({ ok: true, criterion: gate }));
  }

  get(id: string): Promise<CriterionLoad> {
    let load = this.loads.get(id);
    if (load === undefined) {
      load =
        !isPathCriterion(id) && this.unusable.has(id)
          ? Promise.resolve({ ok: false, reason: 'invalid', message: `gate ${id} is not usable` })
          : loadCriterion(this.root, id);
      this.loads.set(id, load);
    }
    return load;
  }

  exists(file: string): Promise<boolean> {
    let exists = this.files.get(file);
    if (exists === undefined) {
      exists = access(path.join(this.root, ...file.split('/'))).then(
        () => true,
        () => false,
      );
      this.files.set(file, exists);
    }
    return exists;
  }
}

/** Code-point order, the order status lists pairs, criteria and files in. */
export function byCodePoint(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
