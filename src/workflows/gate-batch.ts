/**
 * One batch of a gate sweep (a child workflow of the sweep, or of a compare run): the batch's
 * units gathered with bounded concurrency, each along its one path (sweep-unit.ts), the first
 * attempts asked as a provider batch where the sweep chose one; it continues as new when its
 * history grows, and hands a stop with the units left back to its parent.
 */
import { ApplicationFailure, continueAsNew, metricMeter, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { Profile } from '../harness/profiles.js';
import type { AcceptOutcome, CompareTarget, SweepCounts, SweepProblem, SweepUnit } from '../review/sweep-types.js';
import { armedBreaker, releaseHeld, type BreakerState } from '../review/breaker.js';
import { emptyCounts } from '../review/sweep-types.js';
import { runCommand } from '../runs/run-commands.js';
import type { Stop } from '../runs/stop.js';
import { batchProgressQuery, batchResumeUpdate, type BatchProgress } from './messages.js';
import { gather } from './asking/checked.js';
import { Lifecycle } from './lifecycle.js';
import { lowered, paceLimit, startPace, type Pace } from './asking/pace.js';
import type { SpendTotals } from '../runs/spend.js';
import { recordBatchRequestsPending } from '../observability/metrics.js';
import { batchedUnits, type BatchedOutcome, type ProviderBatchProgress } from './asking/provider-batch.js';
import { sweepUnit, unitActivities, type HeldUnit } from './sweep-unit.js';

const { loadBatch } = proxyActivities<Activities>({ startToCloseTimeout: '1m', heartbeatTimeout: '30s', retry: { maximumAttempts: 5 } });

export type { HeldUnit } from './sweep-unit.js';

export interface GateBatchInput {
  runId: string;
  checkout: string;
  batch: number;
  profile: Profile;
  /** The profiles per-criterion routing chose for some units (`unit.profile`); absent when every unit uses `profile`. */
  profiles?: Record<string, Profile>;
  concurrency: number;
  /** The units left to do; absent on the first run of a batch (they are read from the run directory). */
  units?: SweepUnit[];
  counts?: SweepCounts;
  problems?: SweepProblem[];
  /** Events past which the batch finishes its launches in flight and continues as new (default 8,000). */
  historyBudget?: number;
  /** The sweep's `--max-cost` cap, and what the sweep spent before this batch: the batch's launches decide against both, and its progress shows their sum (the live line's run-wide dollars). */
  maxCostUsd?: number;
  spentBefore?: SpendTotals;
  /** The sweep's concurrency as a rate-limit warning lowered it (absent: `concurrency`, not lowered yet). */
  pace?: Pace;
  /** The breaker as the batch's last run left it (absent: armed afresh, as every batch and resume begins). */
  breaker?: BreakerState<HeldUnit>;
  /** A compare run's route: accepted verdicts go to that run's directory instead of the KB's result files. */
  compare?: CompareTarget;
  /** Ask the units' first attempts as a provider batch (an API profile's `--batch` sweep: docs/batches.md); absent: each unit live. */
  providerBatch?: boolean;
}

export interface GateBatchResult {
  counts: SweepCounts;
  problems: SweepProblem[];
  /** Set when a launch stopped the batch; `remaining` then holds every unit not finished. */
  stop?: Stop;
  remaining: SweepUnit[];
  /** Set once a rate-limit warning lowered the concurrency: the sweep's later batches keep it. */
  pace?: Pace;
}

export { batchProgressQuery, batchResumeUpdate, type BatchProgress } from './messages.js';

/** The lowered pace, for the sweep and the batch's next run. */
function withPace(): { pace?: Pace } {
  const pace = lowered();
  return pace !== undefined ? { pace } : {};
}

/** Past this many events a batch finishes its launches in flight and continues as new. */
const historyBudget = 8000;

/** The profile a unit launches under: the one per-criterion routing gave it, or the sweep's. */
function profileOf(input: GateBatchInput, unit: SweepUnit): Profile {
  return (unit.profile !== undefined ? input.profiles?.[unit.profile] : undefined) ?? input.profile;
}

/** Recorded answers judged by one accept activity: a few hundred results a group keep its result far under Temporal's payload limit. */
const JUDGED_GROUP = 200;

/**
 * Where the sweep chose a provider batch: the units' first attempts asked as one, its progress in the stage
 * and the pending-requests metric, the answers judged in groups. Units routed to another profile, or whose
 * requests expired twice or errored, are asked live; undefined when none is batched.
 */
async function providerBatchStep(
  input: GateBatchInput,
  units: SweepUnit[],
  lifecycle: Lifecycle<BatchProgress>,
  guard: string,
  progressed: (progress: ProviderBatchProgress) => void,
): Promise<(BatchedOutcome & { judged: Map<string, AcceptOutcome> }) | undefined> {
  const batchable = units.filter((unit) => unit.profile === undefined && unit.live !== true);
  const report = (progress: ProviderBatchProgress) => {
    progressed(progress);
    const c = progress.counts;
    lifecycle.at(
      `batch ${input.batch + 1}: provider batch ${progress.batches.join(', ')} (round ${progress.round}): ${c.submitted} submitted, ${c.processing} processing, ${c.succeeded} succeeded, ${c.errored} errored, ${c.expired + c.canceled} expired`,
    );
    recordBatchRequestsPending(metricMeter, input.profile.harness, input.profile.name, c.processing);
  };
  if (input.providerBatch !== true || batchable.length === 0) return undefined;
  const requests = `batch-${input.batch + 1}-${workflowInfo().runId}`;
  const provider = await batchedUnits({ runId: input.runId, checkout: input.checkout, profile: input.profile, requests, report }, batchable, lifecycle.spend);
  recordBatchRequestsPending(metricMeter, input.profile.harness, input.profile.name, 0);
  const groups: SweepUnit[][] = [];
  for (let at = 0; at < provider.answered.length; at += JUDGED_GROUP) groups.push(provider.answered.slice(at, at + JUDGED_GROUP));
  const judged = new Map<string, AcceptOutcome>();
  await gather(groups, 4, async (group, index) => {
    const outcomes = await unitActivities.acceptUnits.executeWithOptions(
      { summary: `judge the provider batch's answers ${index * JUDGED_GROUP + 1}-${index * JUDGED_GROUP + group.length}` },
      [
        {
          runId: input.runId,
          checkout: input.checkout,
          units: group,
          guard,
          ...(input.profile.maxOutputBytes !== undefined && { maxOutputBytes: input.profile.maxOutputBytes }),
          ...(input.compare !== undefined && { compare: input.compare }),
        },
      ],
    );
    for (const [key, outcome] of Object.entries(outcomes)) judged.set(key, outcome);
  });
  return { ...provider, judged };
}

/** Continues as new with the units left, which must be fewer than the execution received: a loop that makes no progress fails instead. */
async function continueWith(input: GateBatchInput, received: SweepUnit[], next: GateBatchInput): Promise<never> {
  if ((next.units ?? received).length >= received.length)
    throw ApplicationFailure.create({
      type: 'no-progress',
      nonRetryable: true,
      message: `batch ${input.batch + 1} would continue as new with all ${received.length} of its units`,
    });
  return continueAsNew<typeof gateBatch>(next);
}

/** One batch of a gate sweep: its units gathered with bounded concurrency, each output checked, results written by code. */
export async function gateBatch(input: GateBatchInput): Promise<GateBatchResult> {
  const tally: Tally = { started: 0, finished: 0, units: input.units?.length ?? 0 };
  const counts = input.counts ?? emptyCounts();
  let providerProgress: ProviderBatchProgress | undefined;
  const lifecycle = new Lifecycle<BatchProgress>({
    runId: `${input.runId} batch ${input.batch + 1}`,
    view: {
      headline: (stage) => stage,
      next: { resume: runCommand.sweepResume(input.runId), ended: runCommand.sweepRetry(input.runId) },
      inspect: runCommand.queryProgress(workflowInfo().workflowId, 'batchProgress'),
    },
    autoResume: false,
    progress: {
      query: batchProgressQuery,
      build: (common) => ({
        ...common,
        batch: input.batch,
        counts,
        left: tally.units - tally.started,
        inFlight: tally.started - tally.finished,
        ...(providerProgress !== undefined && { provider: providerProgress }),
      }),
    },
    updates: { resume: batchResumeUpdate },
    spend: {
      ...(input.maxCostUsd !== undefined && { maxCostUsd: input.maxCostUsd }),
      totals: counts,
      ...(input.spentBefore !== undefined && { before: input.spentBefore }),
    },
  });
  return lifecycle.close(
    () => runBatch(input, lifecycle, counts, tally, (progress) => (providerProgress = progress)),
    (stop) => Promise.resolve({ counts, problems: input.problems ?? [], stop, remaining: [] }),
  );
}

/** How many of the batch's units this execution has started and finished, of how many. */
interface Tally {
  started: number;
  finished: number;
  units: number;
}

/** The batch's units asked (the provider batch's first), the breaker's held units settled, and the batch handed back, continued or completed. */
async function runBatch(
  input: GateBatchInput,
  lifecycle: Lifecycle<BatchProgress>,
  counts: SweepCounts,
  tally: Tally,
  progressed: (progress: ProviderBatchProgress) => void,
): Promise<GateBatchResult> {
  startPace(input.concurrency, input.pace);
  const guard = await unitActivities.sweepGuardBaseline.executeWithOptions({ summary: `snapshot the KB for batch ${input.batch + 1}` }, [
    // Short: every model-API unit's input names it. An execution's run ID's first part tells it from the batch's other executions.
    { checkout: input.checkout, runId: input.runId, name: `batch-${input.batch + 1}-${workflowInfo().runId.slice(0, 8)}` },
  ]);
  const units =
    input.units ??
    (await loadBatch.executeWithOptions({ summary: `load the units of batch ${input.batch + 1}` }, [
      { runId: input.runId, checkout: input.checkout, batch: input.batch },
    ]));
  tally.units = units.length;
  const provider = await providerBatchStep(input, units, lifecycle, guard, progressed);
  // Each billed request is a try, as a live launch's is; the spend counted them as launches when collected.
  counts.tries += provider?.billed ?? 0;
  const problems = input.problems ?? [];
  const record = (failed: readonly SweepProblem[]) => {
    problems.push(...failed);
    counts.problems += failed.length;
    counts.pairsDone += failed.length;
  };
  // The breaker judges the batch's first settled units (each unit's path settles it).
  const breaker = { state: input.breaker ?? armedBreaker<HeldUnit>() };
  const stopped = new Map<string, SweepUnit>();
  let stop: Stop | undefined;
  const overBudget = () => workflowInfo().historyLength > (input.historyBudget ?? historyBudget) || workflowInfo().continueAsNewSuggested;
  // Units the provider batch hands back with its stop are not asked here.
  const handedBack = new Set([...(provider?.expired ?? []), ...(provider?.deferred ?? [])].map((unit) => unit.key));
  const left = handedBack.size > 0 ? units.filter((unit) => !handedBack.has(unit.key)) : units;
  // Units the provider batch answered go first: their judging is in the history already, so settling them costs it nothing.
  const judged = provider?.judged ?? new Map<string, AcceptOutcome>();
  const asked = [...left.filter((unit) => judged.has(unit.key)), ...left.filter((unit) => !judged.has(unit.key))];
  const done = await gather(
    asked,
    paceLimit,
    async (unit) => {
      tally.started += 1;
      const batched = judged.get(unit.key);
      const end = await sweepUnit(unit, {
        runId: input.runId,
        checkout: input.checkout,
        profile: profileOf(input, unit),
        counts,
        spend: lifecycle.spend,
        guard,
        breaker,
        record,
        ...(input.compare !== undefined && { compare: input.compare }),
        ...(batched !== undefined && { batched }),
      });
      tally.finished += 1;
      stop ??= end.stop;
      if (end.kind === 'stopped') stopped.set(unit.key, end.pending); // only the criteria not yet accepted are asked again
      lifecycle.at(`batch ${input.batch + 1}: ${counts.pairsDone} pairs done here, ${counts.problems} problems, ${units.length - tally.started} units queued`);
      return true;
    },
    // Every execution starts one unit at least, so one that continues as new hands on fewer than it received.
    () => !stop && (tally.started === 0 || tally.started < judged.size || !overBudget()),
  );
  const remaining = [...stopped.values(), ...asked.filter((_, index) => done[index] === undefined)];
  if (provider?.stop) {
    // Requests that expired twice, or units the cap left out, stop the batch for those units, after every other unit was accepted.
    stop ??= provider.stop;
    remaining.push(...provider.expired, ...provider.deferred);
  }
  if (stop || remaining.length === 0) {
    // A tripped breaker hands its failed units back, asked anew after the fix (their answers were refused as a systematic failure); otherwise they are problems.
    if (breaker.state.status === 'tripped') remaining.unshift(...breaker.state.held.map((held): SweepUnit => ({ ...held.pending, reask: true })));
    const step = releaseHeld(breaker.state);
    breaker.state = step.state;
    for (const held of step.record) record(held.problems);
  }
  if (stop) {
    // The batch's part ends here; the sweep holds the stop and asks the remaining units in a new batch.
    lifecycle.complete('completed', `handed the sweep a ${(stop as Stop).kind} stop, ${remaining.length} units left`);
    return { counts, problems, stop, remaining, ...withPace() };
  }
  if (remaining.length > 0) await continueWith(input, units, { ...input, units: remaining, counts, problems, ...withPace(), breaker: breaker.state });
  lifecycle.complete('completed', `batch ${input.batch + 1}: ${counts.pairsDone} pairs done here, ${counts.problems} problems`);
  return { counts, problems, remaining: [], ...withPace() };
}
