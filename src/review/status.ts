/**
 * Review status as a pure function of the files: which pairs (selected criteria —
 * gates, type specs, COLLECTION.md files — × selected notes, where the criterion
 * applies) are fresh, stale (note changed, criterion
 * changed, both), missing or malformed, and which result files are orphans (their
 * note or criterion is gone, or the criterion no longer applies). No server, no Git.
 */
import path from 'node:path';
import type { Finding } from '../kb/findings.js';
import {
  applies,
  loadGates,
  loadPathCriteria,
  selectionOf,
  selectionOfId,
  type Criterion,
  type CriterionKind,
  type CriterionSelection,
  type GateCatalog,
} from './criteria.js';
import { hashDigests } from './hash.js';
import { isPathCriterion, resultPath } from './paths.js';
import { StatusCache } from './status-cache.js';
import {
  byCodePoint,
  scanResults,
  type Judged,
  type Orphan,
  type OrphanReason,
  type PairKind,
  type PairState,
  type PairStatus,
  type RecordedResult,
  type StaleReason,
  type StrayFile,
} from './status-results.js';
import { EXCLUDED_DIRS, gatePatterns, indexNotes, notePatterns, selectMatching, type NoteIndex, type Pattern, type ReviewableNote } from './reviewable.js';

export interface SelectOptions {
  /** Globs on note paths (`kb/notes/**`); any of them selects a note. Default: every reviewable note. */
  readonly notes?: readonly string[];
  /** Globs on gate IDs (`prose/*`, or a lens name); any of them selects a gate. Default: every gate. */
  readonly gates?: readonly string[];
  /** The kinds of criteria to pair: gates, type specs (`types`), COLLECTION.md files (`collections`). */
  readonly criteria: readonly CriterionSelection[];
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

/** The pairs' and result files' types, defined where the results tree is read. */
export type { Orphan, OrphanReason, PairKind, PairState, PairStatus, RecordedResult, StaleReason, StrayFile };

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
export async function reviewStatus(checkoutRoot: string, options: SelectOptions): Promise<ReviewStatus> {
  const root = path.resolve(checkoutRoot);
  const cache =
    options.cache === undefined || options.cache === false ? undefined : StatusCache.load(root, options.cache === true ? undefined : options.cache.now);
  const [catalog, index] = await Promise.all([loadGates(root), indexNotes(root, cache)]);
  const selection = await select(root, options, catalog, index);
  const pending = pairsOf(selection.notes, selection.criteria);
  const scan = await scanResults({ root, pending, selected: selection.selected, index, catalog, cache });
  await cache?.save();
  const pairs: PairStatus[] = [...pending.values()];
  const { orphans, strays, outside } = scan;
  const { notes, gates, problems } = selection;
  const counts = countsOf(pairs, { notes: notes.length, gates, orphans: orphans.length, strays: strays.length, outside, problems: problems.length });
  return { checkoutRoot: root, pairs, orphans, strays, problems, counts };
}

/** The selected applicable pairs with their freshness: what a sweep asks (everything not fresh) and captures. */
export async function selectPairs(checkoutRoot: string, options: SelectOptions): Promise<PairStatus[]> {
  return [...(await reviewStatus(checkoutRoot, options)).pairs];
}

/** Result files whose pair is gone (note or criterion deleted, or no longer applicable), for pruning. */
export async function findOrphans(checkoutRoot: string, options: SelectOptions): Promise<Orphan[]> {
  return [...(await reviewStatus(checkoutRoot, options)).orphans];
}

/** The notes and criteria the patterns select, the problems met reading them, and which results outside the pairs are selected. */
interface Selection {
  readonly notes: readonly ReviewableNote[];
  /** Sorted by ID. */
  readonly criteria: readonly Criterion[];
  readonly gates: number;
  readonly problems: Finding[];
  readonly selected: (note: string, criterion: string) => boolean;
}

async function select(root: string, options: SelectOptions, catalog: GateCatalog, index: NoteIndex): Promise<Selection> {
  const notePatternList = notePatterns(options.notes ?? []);
  const gatePatternList = gatePatterns(options.gates ?? []);
  const kinds = options.criteria;
  const noteSelected = (file: string) => notePatternList.length === 0 || notePatternList.some((pattern) => pattern.test(file));
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
  const problems: Finding[] = [...catalog.problems, ...others.problems];
  for (const [file, findings] of index.unreadable) {
    if (!noteSelected(file)) continue;
    problems.push({
      file,
      rule: 'note-unreadable',
      severity: 'warn',
      message: `not reviewable until its frontmatter reads: ${findings.map((finding) => finding.message).join('; ')}`,
      ...(findings[0]?.line === undefined ? {} : { line: findings[0].line }),
    });
  }
  return {
    notes,
    criteria: [...gates, ...others.criteria].sort((a, b) => byCodePoint(a.id, b.id)),
    gates: gates.length,
    problems,
    // A type spec's or COLLECTION.md's result is selected by its kind; every other result as before, by the patterns.
    selected: (note, criterion) => {
      if (!noteSelected(note)) return false;
      const kind = isPathCriterion(criterion) ? selectionOfId(criterion) : undefined;
      if (kind !== undefined && kinds.includes(kind)) return true;
      return gatePatternList.length === 0 || gatePatternList.some((pattern) => pattern.test(criterion));
    },
  };
}

/**
 * The pairs, with their hashes now: in note order, then criterion order (both sorted), so already sorted.
 * Each pair's record is made once, missing until its result file is read, and judged in place.
 */
function pairsOf(notes: readonly ReviewableNote[], criteria: readonly Criterion[]): Map<string, Judged> {
  const pending = new Map<string, Judged>();
  const watchKeys = criteria.map((criterion) => criterion.watches.join(','));
  const pairKinds = criteria.map((criterion) => pairKind(criterion.kind));
  for (const note of notes) {
    const noteHashes = new Map<string, string>();
    criteria.forEach((criterion, position) => {
      if (!applies(criterion, note)) return;
      const watchKey = watchKeys[position] as string;
      let noteSha256 = noteHashes.get(watchKey);
      if (noteSha256 === undefined) {
        noteSha256 = hashDigests(note.digests, criterion.watches);
        noteHashes.set(watchKey, noteSha256);
      }
      const where = resultPath(note.path, criterion.id);
      pending.set(where, {
        note: note.path,
        criterion: criterion.id,
        kind: pairKinds[position] as PairKind,
        criterionPath: criterion.path,
        lens: criterion.lens,
        reportCriterion: criterion.reportCriterion,
        watches: criterion.watches,
        noteSha256,
        criterionSha256: criterion.sha256,
        resultPath: where,
        status: 'missing',
      });
    });
  }
  return pending;
}

/** The counts status prints: pairs by state and stale reason, and by kind, with the other files and problems found. */
function countsOf(pairs: readonly PairStatus[], found: Omit<StatusCounts, CountedPairs>): StatusCounts {
  const staleBecause = (reason: StaleReason) => pairs.filter((pair) => pair.staleBecause === reason).length;
  const byKind = Object.fromEntries(
    PAIR_KINDS.map((kind) => {
      const ofKind = pairs.filter((pair) => pair.kind === kind);
      return [kind, { criteria: new Set(ofKind.map((pair) => pair.criterion)).size, pairs: ofKind.length, ...byState(ofKind) }];
    }),
  ) as Record<PairKind, KindCounts>;
  const { fresh, stale, missing, malformed } = byState(pairs);
  const { notes, gates, orphans, strays, outside, problems } = found;
  const [staleNote, staleCriterion, staleBoth] = [staleBecause('note'), staleBecause('criterion'), staleBecause('both')];
  return {
    notes,
    gates,
    pairs: pairs.length,
    fresh,
    stale,
    staleNote,
    staleCriterion,
    staleBoth,
    missing,
    malformed,
    orphans,
    strays,
    outside,
    problems,
    byKind,
  };
}

type CountedPairs = 'pairs' | PairState | 'staleNote' | 'staleCriterion' | 'staleBoth' | 'byKind';
const PAIR_KINDS = ['gate', 'type', 'collection'] as const;
const STATES = ['fresh', 'stale', 'missing', 'malformed'] as const;
const byState = (pairs: readonly PairStatus[]) =>
  Object.fromEntries(STATES.map((state) => [state, pairs.filter((pair) => pair.status === state).length])) as Record<PairState, number>;

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
function pairKind(kind: CriterionKind): PairKind {
  const selection = selectionOf(kind);
  return selection === 'types' ? 'type' : selection === 'collections' ? 'collection' : 'gate';
}
