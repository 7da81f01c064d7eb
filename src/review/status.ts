/**
 * Review status as a pure function of the files: which pairs (selected criteria —
 * gates, type specs, COLLECTION.md files — × selected notes, where the criterion
 * applies) are fresh, stale (note changed, criterion
 * changed, both), missing or malformed, and which result files are orphans (their
 * note or criterion is gone, or the criterion no longer applies). No server, no Git.
 */
import { access, readFile, rmdir, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { Finding } from '../kb/findings.js';
import {
  applies,
  inapplicability,
  loadCriterion,
  loadGates,
  loadPathCriteria,
  selectionOf,
  selectionOfId,
  type Criterion,
  type CriterionKind,
  type CriterionLoad,
  type CriterionSelection,
} from './criteria.js';
import { readBytes, walkFiles } from './files.js';
import { sha256 } from '../fs/digest.js';
import { hashDigests, type WatchedPart } from './hash.js';
import { isPathCriterion, pairOfResultPath, RESULTS_DIR, resultPath } from './paths.js';
import { parseResultFile, type ResultRecord } from './result-file.js';
import { StatusCache, type CachedResult, type ScannedFile } from './status-cache.js';
import { EXCLUDED_DIRS, gatePatterns, indexNotes, notePatterns, selectMatching, type NoteIndex, type Pattern } from './reviewable.js';

export interface SelectOptions {
  /** Globs on note paths (`kb/notes/**`); any of them selects a note. Default: every reviewable note. */
  readonly notes?: readonly string[];
  /** Globs on gate IDs (`prose/*`, or a lens name); any of them selects a gate. Default: every gate. */
  readonly gates?: readonly string[];
  /**
   * The kinds of criteria to pair: gates, type specs (`types`), COLLECTION.md files (`collections`).
   * Default: gates only, what callers recorded before the other kinds were paired (the full pass, old sweeps).
   */
  readonly criteria?: readonly CriterionSelection[];
  /**
   * Keep and use the status cache (`.commonplace/cache/review-status.json`, src/review/status-cache.ts):
   * result files and notes whose stat is unchanged are not read again. Default off; `review status`
   * turns it on. `now` (milliseconds since the epoch, default the clock) is the time entries are
   * judged too recently changed to keep against.
   */
  readonly cache?: boolean | { readonly now?: number };
}

/** Pair counts of one criterion kind. */
export interface KindCounts {
  /** Criteria of this kind that have at least one selected pair. */
  readonly criteria: number;
  readonly pairs: number;
  readonly fresh: number;
  readonly stale: number;
  readonly missing: number;
  readonly malformed: number;
}

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

export interface StatusCounts {
  readonly notes: number;
  readonly gates: number;
  readonly pairs: number;
  readonly fresh: number;
  readonly stale: number;
  readonly staleNote: number;
  readonly staleCriterion: number;
  readonly staleBoth: number;
  readonly missing: number;
  readonly malformed: number;
  readonly orphans: number;
  readonly strays: number;
  /** Valid results outside this selection (other criteria, or filtered out by the patterns). */
  readonly outside: number;
  readonly problems: number;
  /** The pairs by criterion kind (every kind listed, zero when not selected). */
  readonly byKind: Readonly<Record<PairKind, KindCounts>>;
}

export interface ReviewStatus {
  readonly checkoutRoot: string;
  /** Every applicable pair of the selection, sorted by note then criterion. */
  readonly pairs: readonly PairStatus[];
  readonly orphans: readonly Orphan[];
  readonly strays: readonly StrayFile[];
  /** Unusable gates, gates read leniently, and notes whose frontmatter cannot be read. */
  readonly problems: readonly Finding[];
  readonly counts: StatusCounts;
}

/** Computes the review status of a checkout from its files alone: the one view `review status` and the sweep share. */
export async function reviewStatus(checkoutRoot: string, options: SelectOptions = {}): Promise<ReviewStatus> {
  const root = path.resolve(checkoutRoot);
  const notePatternList = notePatterns(options.notes ?? []);
  const gatePatternList = gatePatterns(options.gates ?? []);
  const kinds = options.criteria ?? ['gates'];
  const cache =
    options.cache === undefined || options.cache === false ? undefined : StatusCache.load(root, options.cache === true ? undefined : options.cache.now);
  const [catalog, index] = await Promise.all([loadGates(root), indexNotes(root, cache)]);

  const gates = kinds.includes('gates')
    ? selectMatching(catalog.gates, gatePatternList, (gate) => gate.id, 'gate', `gates are ${GATE_HINT(catalog.gates)}`)
    : [];
  const notes = selectMatching(
    [...index.notes.values()],
    notePatternList,
    (note) => note.path,
    'reviewable note',
    (pattern) => noteHint(pattern, index),
  );
  const others = await loadPathCriteria(root, notes, kinds);
  const criteriaList = [...gates, ...others.criteria].sort((a, b) => compare(a.id, b.id));
  const problems: Finding[] = [...catalog.problems, ...others.problems];
  for (const [file, findings] of index.unreadable) {
    if (notePatternList.length > 0 && !notePatternList.some((pattern) => pattern.test(file))) continue;
    problems.push({
      file,
      rule: 'note-unreadable',
      severity: 'warn',
      message: `not reviewable until its frontmatter reads: ${findings.map((finding) => finding.message).join('; ')}`,
      ...(findings[0]?.line === undefined ? {} : { line: findings[0].line }),
    });
  }

  // The pairs, with their hashes now: in note order, then criterion order (both sorted), so already sorted.
  // Each pair's record is made once, missing until its result file is read, and judged in place.
  const pending = new Map<string, Judged>();
  const watchKeys = criteriaList.map((gate) => gate.watches.join(','));
  const pairKinds = criteriaList.map((criterion) => pairKind(criterion.kind));
  for (const note of notes) {
    const noteHashes = new Map<string, string>();
    criteriaList.forEach((gate, position) => {
      if (!applies(gate, note)) return;
      const watchKey = watchKeys[position] as string;
      let noteSha256 = noteHashes.get(watchKey);
      if (noteSha256 === undefined) {
        noteSha256 = hashDigests(note.digests, gate.watches);
        noteHashes.set(watchKey, noteSha256);
      }
      const where = resultPath(note.path, gate.id);
      pending.set(where, {
        note: note.path,
        criterion: gate.id,
        kind: pairKinds[position] as PairKind,
        criterionPath: gate.path,
        lens: gate.lens,
        reportCriterion: gate.reportCriterion,
        watches: gate.watches,
        noteSha256,
        criterionSha256: gate.sha256,
        resultPath: where,
        status: 'missing',
      });
    });
  }

  // Every file in the results tree, classified once.
  const orphans: Orphan[] = [];
  const strays: StrayFile[] = [];
  let outside = 0;
  const criteria = new CriterionCache(root, catalog.gates, catalog.unusable);
  // A type spec's or COLLECTION.md's result is selected by its kind; every other result as before, by the patterns.
  const selected = (note: string, criterion: string): boolean => {
    if (notePatternList.length > 0 && !notePatternList.some((pattern) => pattern.test(note))) return false;
    const kind = isPathCriterion(criterion) ? selectionOfId(criterion) : undefined;
    if (kind !== undefined && kinds.includes(kind)) return true;
    return gatePatternList.length === 0 || gatePatternList.some((pattern) => pattern.test(criterion));
  };

  // Results whose pair is not selected, to classify once the walk is done.
  const unpaired: { file: string; text: string; record: ResultRecord }[] = [];
  const visit = (file: string, scanned: ScannedFile | undefined, kept: CachedResult | undefined): void => {
    const pair = pending.get(file);
    if (pair !== undefined && kept !== undefined) {
      judgeResult(pair, kept);
      return;
    }
    const derived = pair ?? pairOfResultPath(file);
    if (derived === undefined) {
      strays.push({
        path: file,
        findings: [
          { file, rule: 'result-path', severity: 'fail', message: `not a result file: results are ${RESULTS_DIR}/<note path below kb/>/<criterion ID>.md` },
        ],
      });
      return;
    }
    if (pair === undefined && !selected(derived.note, derived.criterion)) {
      outside += 1;
      return;
    }
    const text = readBytes(root, file, scanned === undefined || cache === undefined ? undefined : (fd) => cache.opened(scanned, fd))?.toString('utf8');
    if (text === undefined) return; // deleted since the walk
    const parsed = parseResultFile(text, file);
    if (pair !== undefined) {
      if (!parsed.ok) {
        setState(pair, 'malformed', undefined, undefined, parsed.findings);
        return;
      }
      const result = recorded(parsed.record);
      if (scanned !== undefined) cache?.remember(scanned, result);
      judgeResult(pair, result);
      return;
    }
    if (parsed.ok) unpaired.push({ file, text, record: parsed.record });
    else strays.push({ path: file, findings: parsed.findings });
  };
  if (cache === undefined) for (const file of walkFiles(root, RESULTS_DIR)) visit(file, undefined, undefined);
  else cache.scan(RESULTS_DIR, (scanned, kept) => visit(scanned.path, scanned, kept));
  for (const { file, text, record } of unpaired) {
    const orphan = await classify(record, index, criteria);
    if (orphan === undefined) outside += 1;
    else orphans.push({ ...orphan, resultPath: file, note: record.note, criterion: record.criterion, fileSha256: sha256(text) });
  }
  await cache?.save();

  const pairs: PairStatus[] = [];
  const tally = { fresh: 0, stale: 0, missing: 0, malformed: 0, note: 0, criterion: 0, both: 0 };
  const byKind: Record<PairKind, { criteria: Set<string>; pairs: number } & Record<PairState, number>> = {
    gate: { criteria: new Set(), pairs: 0, fresh: 0, stale: 0, missing: 0, malformed: 0 },
    type: { criteria: new Set(), pairs: 0, fresh: 0, stale: 0, missing: 0, malformed: 0 },
    collection: { criteria: new Set(), pairs: 0, fresh: 0, stale: 0, missing: 0, malformed: 0 },
  };
  for (const pair of pending.values()) {
    tally[pair.status] += 1;
    const kind = byKind[pair.kind];
    kind.criteria.add(pair.criterion);
    kind.pairs += 1;
    kind[pair.status] += 1;
    if (pair.staleBecause !== undefined) tally[pair.staleBecause] += 1;
    pairs.push(pair);
  }
  orphans.sort((a, b) => compare(a.resultPath, b.resultPath));
  strays.sort((a, b) => compare(a.path, b.path));

  const counts: StatusCounts = {
    notes: notes.length,
    gates: gates.length,
    pairs: pairs.length,
    fresh: tally.fresh,
    stale: tally.stale,
    staleNote: tally.note,
    staleCriterion: tally.criterion,
    staleBoth: tally.both,
    missing: tally.missing,
    malformed: tally.malformed,
    orphans: orphans.length,
    strays: strays.length,
    outside,
    problems: problems.length,
    byKind: Object.fromEntries(Object.entries(byKind).map(([kind, { criteria: ids, ...rest }]) => [kind, { criteria: ids.size, ...rest }])) as Record<
      PairKind,
      KindCounts
    >,
  };
  return { checkoutRoot: root, pairs, orphans, strays, problems, counts };
}

/** The selected applicable pairs with their freshness: what a sweep asks (everything not fresh) and captures. */
export async function selectPairs(checkoutRoot: string, options: SelectOptions = {}): Promise<PairStatus[]> {
  return [...(await reviewStatus(checkoutRoot, options)).pairs];
}

/** Result files whose pair is gone (note or criterion deleted, or no longer applicable), for pruning. */
export async function findOrphans(checkoutRoot: string, options: SelectOptions = {}): Promise<Orphan[]> {
  return [...(await reviewStatus(checkoutRoot, options)).orphans];
}

export interface PruneReport {
  /** Result files deleted, repository-relative. */
  readonly deleted: readonly string[];
  /** Orphans left in place because the file changed (or vanished) since it was classified. */
  readonly kept: readonly { readonly path: string; readonly reason: string }[];
  /** Directories of the results tree that the deletions emptied and that were removed. */
  readonly removedDirs: readonly string[];
}

/** Deletes orphaned result files that are unchanged since they were found, and the directories that leaves empty. */
export async function pruneOrphans(checkoutRoot: string, orphans: readonly Orphan[]): Promise<PruneReport> {
  const root = path.resolve(checkoutRoot);
  const deleted: string[] = [];
  const kept: { path: string; reason: string }[] = [];
  const dirs = new Set<string>();
  for (const orphan of orphans) {
    if (!orphan.resultPath.startsWith(`${RESULTS_DIR}/`)) {
      kept.push({ path: orphan.resultPath, reason: 'not in the results tree' });
      continue;
    }
    const absolute = path.join(root, ...orphan.resultPath.split('/'));
    let text: string;
    try {
      text = await readFile(absolute, 'utf8');
    } catch {
      kept.push({ path: orphan.resultPath, reason: 'already gone' });
      continue;
    }
    if (sha256(text) !== orphan.fileSha256) {
      kept.push({ path: orphan.resultPath, reason: 'changed since it was found; run status again' });
      continue;
    }
    await unlink(absolute);
    deleted.push(orphan.resultPath);
    dirs.add(path.posix.dirname(orphan.resultPath));
  }
  // Remove emptied directories bottom-up, never the results tree itself.
  const removedDirs: string[] = [];
  const candidates = new Set<string>();
  for (const dir of dirs) {
    for (let current = dir; current.startsWith(`${RESULTS_DIR}/`); current = path.posix.dirname(current)) candidates.add(current);
  }
  for (const dir of [...candidates].sort((a, b) => b.split('/').length - a.split('/').length || compare(a, b))) {
    try {
      await rmdir(path.join(root, ...dir.split('/')));
      removedDirs.push(dir);
    } catch {
      // Not empty (other results, or another orphan kept): leave it.
    }
  }
  removedDirs.sort(compare);
  return { deleted, kept, removedDirs };
}

/** A pair's record while status judges it. */
type Judged = { -readonly [K in keyof PairStatus]: PairStatus[K] };

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

/** Why a `--notes` pattern selected nothing: the files it does match and why they are not reviewable. */
function noteHint(pattern: Pattern, index: NoteIndex): string {
  const general = `reviewable notes are typed notes under kb/ outside ${EXCLUDED_DIRS.join(', ')} (patterns are globs on paths such as kb/notes/**)`;
  const near = [...index.notReviewable].filter(([file]) => pattern.test(file)).map(([file, why]) => `${file}: ${why}`);
  near.push(...[...index.unreadable.keys()].filter((file) => pattern.test(file)).map((file) => `${file}: its frontmatter cannot be read`));
  if (near.length === 0) return general;
  const shown = near.slice(0, 3).join('; ');
  return `it matches ${near.length} file${near.length === 1 ? '' : 's'} that ${near.length === 1 ? 'is' : 'are'} not reviewable (${shown}${near.length > 3 ? '; …' : ''}); ${general}`;
}
const GATE_HINT = (gates: readonly Criterion[]): string => {
  const lenses = [...new Set(gates.map((gate) => gate.lens))].sort();
  return `{lens}/{name} with lenses ${lenses.join(', ') || '(none)'} (patterns are globs such as prose/* or a lens name)`;
};

/** The kind of a pair, by its criterion: the words status prints. */
export function pairKind(kind: CriterionKind): PairKind {
  const selection = selectionOf(kind);
  return selection === 'types' ? 'type' : selection === 'collections' ? 'collection' : 'gate';
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
