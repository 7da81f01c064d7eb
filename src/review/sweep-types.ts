import type { Finding } from '../kb/findings.js';
import type { Profile } from '../harness/profiles.js';
import type { CachePrefix, CachePrefixReport } from '../harness/prompt-cache.js';
import type { LaunchResult } from '../harness/launch-contract.js';
import type { BatchChoice } from '../harness/batches/batch-contract.js';
import type { LifecycleProgress } from '../runs/stop.js';
import { addTotals, emptyTokens, type SpendTotals } from '../runs/spend.js';

export type Grouping = 'pair' | 'bundle';
export type Outcome = 'pass' | 'warn' | 'fail' | 'report';

/** One criterion of a unit of sweep work. */
export interface UnitCriterion {
  id: string;
  /** The criterion file, relative to the checkout root. */
  path: string;
  /** A report criterion ends `Result: report`; a gate ends pass, warn or fail. */
  report: boolean;
}

/** What one launch asks: one pair (grouping `pair`), or one note and one lens's stale gates (`bundle`). */
export interface SweepUnit {
  key: string;
  /** The note, relative to the checkout root. */
  note: string;
  lens: string;
  criteria: UnitCriterion[];
  /** The profile per-criterion routing chose for this unit's criteria, when not the sweep's (docs/review-compare.md). */
  profile?: string;
  /**
   * On a model API, what the request puts first for the prompt cache when the sweep chose it: a
   * pair's note (the sweep then goes note-major) or a bundle's criteria (lens by lens); absent: a
   * pair's criterion, a bundle's note. Chosen at prepare time by which caches more (docs/harnesses.md).
   */
  cachePrefix?: CachePrefix;
  /** Asked live even in a `--batch` sweep: its requests expired in two provider batches, so a resume asks it live (docs/batches.md). */
  live?: true;
  /** Asked anew, past the run's recorded answers: a tripped breaker refused them as a systematic failure, which the operator fixed before the resume. */
  reask?: true;
}

export interface SweepOptions {
  notes: string[];
  gates: string[];
  grouping: Grouping;
  profile: string;
  /** Units in flight at once; absent: the profile's default (`defaultSweepConcurrency`: higher for a model API than for a CLI). */
  concurrency?: number;
  /** Units per child workflow; absent: the profile's default (`defaultSweepBatchSize`: larger for a model API than for a CLI). */
  batchSize?: number;
  /** Wait for a usage limit's reset time on a durable timer and go on (scheduled sweeps). */
  autoResume: boolean;
  /** Re-ask the problem pairs of this finished sweep instead of selecting stale pairs. */
  retryOf?: string;
  /** Events past which the sweep continues as new between batches, and a batch between units (defaults 4,000 and 8,000; tests set them low). */
  historyBudget?: { sweep?: number; batch?: number };
  /** The `--max-cost` cap in US dollars over the whole sweep (raised by a resume; not part of the sweep's identity). */
  maxCostUsd?: number;
  /** The criterion kinds the sweep pairs (`--criteria`). */
  criteria: ('gates' | 'types' | 'collections')[];
  /** Whether the units go as provider batches (docs/batches.md); absent: live, as `--live` asks. */
  batch?: BatchChoice;
}

export interface SweepInput extends SweepOptions {
  /** The KB checkout: `<checkout:ID>` (src/checkout/places.ts). */
  checkout: string;
  /** Empty for a scheduled start: the run ID then comes from the workflow ID. */
  runId?: string;
  profilesFile?: string;
  /** Environment added to the profile's (a fake-harness scenario in tests and the demo). */
  env?: Record<string, string>;
}

export interface PreparedSweep {
  runId: string;
  runDir: string;
  profile: Profile;
  /** The other profiles per-criterion routing chose, by name: the units naming them launch under them. */
  profiles?: Record<string, Profile>;
  pairs: number;
  units: number;
  batches: number;
  /** On a model API: the units' shared prefixes against the model's minimum cacheable length. */
  cachePrefixes?: CachePrefixReport;
  /** The units in flight at once: `--concurrency`, else the profile's default. */
  concurrency?: number;
}

/** What code read from the checkout for one attempt: the inputs' digests the result must still match. */
export interface CapturedUnit {
  dir: string;
  /** How the output is laid out: one result line (`pair`), or one `## <gate>` section per gate (`bundle`). */
  grouping: Grouping;
  prompt: string;
  outputs: string[];
  /** Per criterion ID: the note's watched-part hash and the criterion's hash, as given to the worker. */
  hashes: Record<string, { note: string; criterion: string }>;
  /**
   * The launch's inputs as texts (relative path → text) and its directory under the launching worker's
   * own state (`<state>/…`): the launch carries them, so it runs on any worker.
   */
  files: Record<string, string>;
  launchDir: string;
  /** The digest of the unit's answer key: the run keeps the answer under it (src/activities/review/sweep/answers.ts). */
  answer: string;
  /** The run's recorded answer to this ask, from any of its executions: adopted, not asked again. */
  adopted?: LaunchResult;
}

export interface AcceptInput {
  runId: string;
  checkout: string;
  unit: SweepUnit;
  /** The attempt whose capture (`capture.json` in its launch directory) the answer is checked against. */
  attempt: number;
  /** A launch that just answered (its output's bytes in `outputBytes` when it ran elsewhere): recorded in the run's answers first. Absent: the run's recorded answer to the captured ask. */
  launch?: LaunchResult;
  /** The batch's KB snapshot (`sweepGuardBaseline`): an answer that came while the KB changed outside review state is not accepted. */
  guard?: string;
  /** The cap on the output (the profile's `max-output`); absent: the default. */
  maxOutputBytes?: number;
  /** Set for a compare run's route: the accepted verdict goes to that run's directory, never to a result file. */
  compare?: CompareTarget;
}

/** Where a compare run's route keeps its accepted verdicts (src/review/compare/types.ts). */
export interface CompareTarget {
  runId: string;
  route: string;
}

export interface AcceptedResult {
  criterion: string;
  outcome: Outcome;
}

/** A criterion whose output was refused, and why: re-ask it with these findings. */
export interface Rejection {
  criterion: string;
  findings: Finding[];
}

/** What the check made of one output: results written, criteria to ask again (with why), criteria that went stale in flight. */
export interface AcceptOutcome {
  written: AcceptedResult[];
  rejected: Rejection[];
  staleOnArrival: string[];
  /** KB paths that changed since the batch's snapshot: when any, nothing was judged (the answer stays recorded). */
  changed?: string[];
}

export interface SweepProblem {
  note: string;
  criterion: string;
  /** One line: the budget spent, and the last findings' messages. */
  reason: string;
  /** The last refused try's findings (absent in problems recorded before findings were records). */
  findings?: Finding[];
}

/** A sweep's counts; its spend fields (launches, cost, unpriced launches, tokens) are its `SpendTotals`. */
export interface SweepCounts extends SpendTotals {
  pairsDone: number;
  written: Record<Outcome, number>;
  problems: number;
  staleOnArrival: number;
  launches: number;
  tries: number;
  costUsd: number;
}

export const emptyCounts = (): SweepCounts => ({
  pairsDone: 0,
  written: { pass: 0, warn: 0, fail: 0, report: 0 },
  problems: 0,
  staleOnArrival: 0,
  launches: 0,
  tries: 0,
  costUsd: 0,
  unpriced: 0,
  tokens: emptyTokens(),
});

export interface SweepProgress extends LifecycleProgress {
  pairs: number;
  units: number;
  batches: number;
  batch: number;
  /** The batch child running now, for its finer progress. */
  currentBatch?: string;
  counts: SweepCounts;
  /** On a model API: the shared prefixes below the model's minimum cacheable length, which caching silently skips. */
  cachePrefixes?: CachePrefixReport;
}

export interface SweepSummary extends SweepProgress {
  runDir: string;
  /** The first problems (all of them are in the run directory's problems.jsonl). */
  problems: SweepProblem[];
}

/** Adds a batch's counts into a run's. */
export function addCounts(into: SweepCounts, from: SweepCounts): void {
  into.pairsDone += from.pairsDone;
  into.problems += from.problems;
  into.staleOnArrival += from.staleOnArrival;
  into.tries += from.tries;
  addTotals(into, from);
  for (const key of Object.keys(from.written) as (keyof SweepCounts['written'])[]) into.written[key] += from.written[key];
}

/** The spend part of a run's counts, handed to a batch. */
export function spentSoFar(counts: SweepCounts): SpendTotals {
  return {
    launches: counts.launches,
    costUsd: counts.costUsd,
    unpriced: counts.unpriced,
    tokens: { ...counts.tokens },
  };
}
