import {
  ApplicationFailure,
  condition,
  continueAsNew,
  defineQuery,
  defineUpdate,
  executeChild,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { PreparedSweep, SweepCounts, SweepInput, SweepProgress, SweepStatus, SweepSummary, SweepUnit } from '../review/sweep-types.js';
import { emptyCounts } from '../review/sweep-types.js';
import type { GateBatchResult } from './gate-batch.js';
import { gateBatch } from './gate-batch.js';
import { recordStatus } from './helpers/status.js';
import type { Stop } from './helpers/stops.js';

const { prepareSweep, recordProblems, finishSweep } = proxyActivities<Activities>({ startToCloseTimeout: '10m', heartbeatTimeout: '1m', retry: { maximumAttempts: 3 } });

/** State carried across continue-as-new. */
interface SweepCarry {
  prepared: PreparedSweep;
  batch: number;
  counts: SweepCounts;
  /** Units of the current batch left by a stop. */
  remaining?: SweepUnit[];
  resumes: number;
}

export const progressQuery = defineQuery<SweepProgress>('progress');
export const resumeUpdate = defineUpdate<SweepProgress, []>('resume');

/** Runs of more than this many events continue as new between batches. */
const historyBudget = 4000;

function add(into: SweepCounts, from: SweepCounts): void {
  into.pairsDone += from.pairsDone;
  into.problems += from.problems;
  into.staleOnArrival += from.staleOnArrival;
  into.launches += from.launches;
  into.tries += from.tries;
  into.costUsd += from.costUsd;
  for (const key of Object.keys(from.written) as (keyof SweepCounts['written'])[]) into.written[key] += from.written[key];
}

/** The run ID of a sweep: given by the CLI, or derived from the workflow ID a schedule gave it. */
export function sweepRunId(input: SweepInput): string {
  return input.runId ?? workflowInfo().workflowId.replace(/^gates\//, '').replace(/[^A-Za-z0-9._-]+/g, '-');
}

/**
 * The gate sweep: selects stale and missing pairs, asks them batch by batch in child workflows,
 * writes a result per accepted pair, and stops (resumably) on a usage limit or failed launches.
 */
export async function gateSweep(input: SweepInput, carried?: SweepCarry): Promise<SweepSummary> {
  const runId = sweepRunId(input);
  let status: SweepStatus = 'running';
  let stop: Stop | undefined;
  let resumesAt: string | undefined;
  let resumeRequested = false;
  const counts = carried?.counts ?? emptyCounts();
  let batch = carried?.batch ?? 0;
  let remaining = carried?.remaining;
  let resumes = carried?.resumes ?? 0;
  let currentBatch: string | undefined;
  let prepared = carried?.prepared;

  const progress = (): SweepProgress => ({
    runId,
    status,
    pairs: prepared?.pairs ?? 0,
    units: prepared?.units ?? 0,
    batches: prepared?.batches ?? 0,
    batch,
    ...(currentBatch !== undefined && { currentBatch }),
    counts,
    ...(stop && { stop }),
    ...(resumesAt !== undefined && { resumesAt }),
  });
  setHandler(progressQuery, progress);
  setHandler(
    resumeUpdate,
    async () => {
      resumeRequested = true;
      await condition(() => status === 'running');
      return progress();
    },
    {
      validator: () => {
        if (status !== 'stopped') throw ApplicationFailure.create({ type: 'nothing-to-resume', message: `sweep ${runId} is ${status}: there is nothing to resume`, nonRetryable: true });
      },
    },
  );

  if (!prepared) {
    setCurrentDetails('selecting stale and missing pairs');
    prepared = await prepareSweep({ ...input, runId });
  }
  const ready = prepared;

  while (batch < ready.batches) {
    setCurrentDetails(`batch ${batch + 1} of ${ready.batches}: ${counts.pairsDone} of ${ready.pairs} pairs done, ${counts.problems} problems`);
    currentBatch = `${workflowInfo().workflowId}/batch-${batch + 1}${resumes > 0 ? `-r${resumes}` : ''}`;
    const result: GateBatchResult = await executeChild(gateBatch, {
      workflowId: currentBatch,
      args: [{ runId, checkout: input.checkout, batch, profile: ready.profile, concurrency: input.concurrency, ...(remaining && { units: remaining }) }],
      staticSummary: `gate sweep ${runId}: batch ${batch + 1} of ${ready.batches}`,
    });
    add(counts, result.counts);
    if (result.problems.length > 0) await recordProblems({ checkout: input.checkout, runId, problems: result.problems });
    currentBatch = undefined;
    if (result.stop) {
      remaining = result.remaining;
      stop = result.stop;
      status = 'stopped';
      recordStatus('stopped');
      const resetAt = stop.resetAt ? Date.parse(stop.resetAt) : NaN;
      const waitMs = input.autoResume && stop.kind === 'usage-limit' && Number.isFinite(resetAt) ? Math.max(0, resetAt - Date.now()) + 60_000 : undefined;
      resumesAt = waitMs === undefined ? undefined : new Date(Date.now() + waitMs).toISOString();
      setCurrentDetails(
        `**stopped: ${stop.kind}** (${stop.disposition}) — ${stop.reason}` +
          (resumesAt ? `\n\ngoes on by itself at ${resumesAt}` : `\n\nresume: \`commonplace review run gates --resume ${runId}\``),
      );
      if (waitMs === undefined) await condition(() => resumeRequested);
      else await condition(() => resumeRequested, waitMs);
      resumeRequested = false;
      stop = undefined;
      resumesAt = undefined;
      resumes += 1;
      status = 'running';
      recordStatus('running');
      continue;
    }
    remaining = undefined;
    resumes = 0;
    batch += 1;
    if (batch < ready.batches && workflowInfo().historyLength > historyBudget) {
      await continueAsNew<typeof gateSweep>(input, { prepared: ready, batch, counts, resumes });
    }
  }

  status = 'completed';
  setCurrentDetails(`completed: ${counts.pairsDone} pairs, ${counts.problems} problems, ${counts.staleOnArrival} stale on arrival`);
  const summary = await finishSweep({ checkout: input.checkout, runId, progress: progress(), runDir: ready.runDir });
  recordStatus('completed');
  return summary;
}
