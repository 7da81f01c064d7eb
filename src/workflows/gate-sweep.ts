import { continueAsNew, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { PreparedSweep, SweepCounts, SweepInput, SweepProgress, SweepSummary, SweepUnit } from '../review/sweep-types.js';
import { emptyCounts, spentSoFar } from '../review/sweep-types.js';
import { batchSearchAttributes, runBatches } from './batch-loop.js';
import { CommonplaceProfile } from '../search-attributes.js';
import { runDetails } from '../runs/run-details.js';
import { runCommand, sweepNext } from '../runs/run-commands.js';
import { gateBatchId } from '../runs/workflow-ids.js';
import { sweepAcknowledgeUpdate, sweepProgressQuery, sweepResumeUpdate } from './messages.js';
import { Lifecycle } from './lifecycle.js';
import type { Pace } from './asking/pace.js';
import { batchesChosen } from '../harness/batches/batch-contract.js';

const { prepareSweep, recordProblems, finishSweep } = proxyActivities<Activities>({
  startToCloseTimeout: '10m',
  heartbeatTimeout: '30s',
  retry: { maximumAttempts: 3 },
});

interface SweepCarry {
  prepared: PreparedSweep;
  batch: number;
  counts: SweepCounts;
  /** Units of the current batch left by a stop. */
  remaining?: SweepUnit[];
  resumes: number;
  pace?: Pace;
}

export { sweepAcknowledgeUpdate as acknowledgeUpdate, sweepProgressQuery as progressQuery, sweepResumeUpdate as resumeUpdate } from './messages.js';

/** Events past which a sweep continues as new between batches. */
const historyBudget = 4000;

/** Given by the CLI, or derived from the workflow ID a schedule gave it. */
export function sweepRunId(input: SweepInput): string {
  return (
    input.runId ??
    workflowInfo()
      .workflowId.replace(/^gates\//, '')
      .replace(/[^A-Za-z0-9._-]+/g, '-')
  );
}

/** Stale and missing pairs asked batch by batch in child workflows; pairs that spent their budget are problems, which close it `exhausted`. */
export async function gateSweep(input: SweepInput, carried?: SweepCarry): Promise<SweepSummary> {
  const runId = sweepRunId(input);
  const state = {
    counts: carried?.counts ?? emptyCounts(),
    batch: carried?.batch ?? 0,
    prepared: carried?.prepared,
    currentBatch: undefined as string | undefined,
  };
  const lifecycle: Lifecycle<SweepProgress> = new Lifecycle<SweepProgress>({
    runId,
    view: {
      headline: (stage) => stage,
      next: sweepNext(runId),
      inspect: runCommand.queryProgress(workflowInfo().workflowId),
    },
    autoResume: input.autoResume,
    progress: {
      query: sweepProgressQuery,
      build: (common) => ({
        ...common,
        pairs: state.prepared?.pairs ?? 0,
        units: state.prepared?.units ?? 0,
        batches: state.prepared?.batches ?? 0,
        batch: state.batch,
        ...(state.currentBatch !== undefined && { currentBatch: state.currentBatch }),
        counts: state.counts,
        ...(state.prepared?.cachePrefixes !== undefined && { cachePrefixes: state.prepared.cachePrefixes }),
      }),
    },
    updates: { resume: sweepResumeUpdate, acknowledge: sweepAcknowledgeUpdate },
    spend: { ...(input.maxCostUsd !== undefined && { maxCostUsd: input.maxCostUsd }), totals: state.counts },
  });
  const finish = async (summaryOf: SweepProgress): Promise<SweepSummary> =>
    finishSweep.executeWithOptions({ summary: `write the summary of sweep ${runId} (${summaryOf.status})` }, [
      { checkout: input.checkout, runId, progress: summaryOf, runDir: state.prepared?.runDir ?? '' },
    ]);
  return lifecycle.close(
    async () => {
      if (!state.prepared) {
        lifecycle.at('selecting stale and missing pairs');
        state.prepared = await prepareSweep.executeWithOptions({ summary: `select the stale and missing pairs of sweep ${runId}` }, [{ ...input, runId }]);
      }
      await sweepBatches(input, runId, lifecycle, state, carried);
      const { counts } = state;
      if (counts.problems > 0) {
        await lifecycle.halt({
          kind: 'budget-exhausted',
          disposition: 'operator',
          reason: `${counts.problems} pair${counts.problems === 1 ? '' : 's'} spent the attempt budget without an accepted result (the sweep's problems); ${counts.pairsDone - counts.problems} others done`,
          evidence: `${state.prepared.runDir}/problems.jsonl`,
        });
      }
      const summary = await finish(
        lifecycle.completing(`completed: ${counts.pairsDone} pairs, ${counts.problems} problems, ${counts.staleOnArrival} stale on arrival`),
      );
      lifecycle.complete('completed', lifecycle.stage);
      return summary;
    },
    async () => finish(lifecycle.progress()),
  );
}

/** The kind of a sweep's batches: `CommonplaceKind = "gates"` lists the sweeps alone. */
export const BATCH_KIND = 'gate-batch';

/** `--concurrency`, else the profile's default as the preparation resolved it. */
function concurrencyOf(input: SweepInput, ready: PreparedSweep): number {
  return input.concurrency ?? ready.concurrency ?? 4;
}

function batchDetails(input: SweepInput, runId: string, ready: PreparedSweep, batch: number, resumes: number, remaining: SweepUnit[] | undefined): string {
  const left = remaining && { units: remaining.length, pairs: remaining.reduce((sum, unit) => sum + unit.criteria.length, 0) };
  return runDetails(`gate batch ${batch + 1} of ${ready.batches}`, [
    ['sweep', runId],
    ['parent workflow', workflowInfo().workflowId],
    ['resume', resumes > 0 ? resumes : undefined],
    ['units', left ? `${left.units} left by the stop` : 'read from the run directory'],
    ['pairs', left ? `${left.pairs} left by the stop` : `the sweep has ${ready.pairs} in ${ready.units} units`],
    ['profile', ready.profile.name],
    ['concurrency', concurrencyOf(input, ready)],
    ['run directory', ready.runDir],
  ]);
}

/** Continues as new between batches when the history grows. */
async function sweepBatches(
  input: SweepInput,
  runId: string,
  lifecycle: Lifecycle<SweepProgress>,
  state: { counts: SweepCounts; batch: number; prepared: PreparedSweep | undefined; currentBatch: string | undefined },
  carried: SweepCarry | undefined,
): Promise<void> {
  const ready = state.prepared as PreparedSweep;
  const { counts } = state;
  await runBatches({
    batches: ready.batches,
    from: {
      batch: state.batch,
      resumes: carried?.resumes ?? 0,
      ...(carried?.remaining && { remaining: carried.remaining }),
      ...(carried?.pace && { pace: carried.pace }),
    },
    counts,
    state,
    child: ({ batch, resumes, remaining, pace }) => {
      lifecycle.at(
        `batch ${batch + 1} of ${ready.batches}: ${counts.pairsDone} of ${ready.pairs} pairs done, ${counts.problems} problems${pace ? `; concurrency lowered to ${pace.concurrency} after a rate-limit warning (${pace.warning})` : ''}`,
      );
      return {
        workflowId: gateBatchId(workflowInfo().workflowId, batch, resumes),
        input: {
          runId,
          checkout: input.checkout,
          profile: ready.profile,
          ...(ready.profiles && { profiles: ready.profiles }),
          concurrency: concurrencyOf(input, ready),
          // An API profile's sweep asked with `--batch` (or a schedule's large one) asks each batch's units as a provider batch.
          ...(batchesChosen(input.batch, ready.profile.harness, ready.units) && { providerBatch: true }),
          ...(input.historyBudget?.batch !== undefined && { historyBudget: input.historyBudget.batch }),
          // The batch decides against the sweep's cap with what the sweep spent before it (batches run one at a time); its progress shows the run-wide spend.
          ...(lifecycle.spend.capUsd !== undefined && { maxCostUsd: lifecycle.spend.capUsd }),
          spentBefore: spentSoFar(counts),
        },
        options: {
          staticSummary: `gate sweep ${runId}: batch ${batch + 1} of ${ready.batches}${resumes > 0 ? ` (resume ${resumes})` : ''}`,
          staticDetails: batchDetails(input, runId, ready, batch, resumes, remaining),
          ...batchSearchAttributes(BATCH_KIND, runId, workflowInfo().typedSearchAttributes.get(CommonplaceProfile) ?? ready.profile.name),
        },
      };
    },
    problems: async (problems, { batch }) => {
      await recordProblems.executeWithOptions({ summary: `record ${problems.length} problem${problems.length === 1 ? '' : 's'} of batch ${batch + 1}` }, [
        { checkout: input.checkout, runId, problems },
      ]);
    },
    waitOut: (stop) => lifecycle.waitOut(stop),
    finished: async ({ batch, resumes, pace }) => {
      state.batch = batch;
      if (batch < ready.batches && workflowInfo().historyLength > (input.historyBudget?.sweep ?? historyBudget)) {
        await continueAsNew<typeof gateSweep>(
          { ...input, ...(lifecycle.spend.capUsd !== undefined && { maxCostUsd: lifecycle.spend.capUsd }) },
          { prepared: ready, batch, counts, resumes, ...(pace && { pace }) },
        );
      }
    },
  });
}
