/**
 * A gate batch's units as one provider batch: submit (its IDs recorded in history before anything else), poll on durable timers, collect
 * into the run's answers. Cancelling the run cancels the provider's batch. The history carries the requests file's name, not the requests.
 */
import { ActivityFailure, CancellationScope, isCancellation, metricMeter, proxyActivities, sleep } from '@temporalio/workflow';
import { recordBilledTotals } from '../../observability/metrics.js';
import type { Activities } from '../../activities/index.js';
import { BATCH_ACTIVITY_ATTEMPTS, BATCH_POLL, type ProviderBatchProgress } from '../../harness/batches/batch-contract.js';

export type { ProviderBatchProgress } from '../../harness/batches/batch-contract.js';
import type { Profile } from '../../harness/profiles.js';
import type { SweepUnit } from '../../review/sweep-types.js';
import type { StopOf } from '../../runs/stop.js';
import type { Spend } from '../spend-cap.js';
import { unitName } from '../sweep-unit.js';

const batchActivities = proxyActivities<Activities>({
  startToCloseTimeout: '10m',
  heartbeatTimeout: '30s',
  retry: {
    initialInterval: '10s',
    backoffCoefficient: 2,
    maximumInterval: '5m',
    maximumAttempts: BATCH_ACTIVITY_ATTEMPTS,
    nonRetryableErrorTypes: ['bad-launch-input', 'harness-missing'],
  },
});

interface ProviderRound {
  batches: string[];
  answered: number;
  errored: Map<string, string>;
  expired: string[];
  /** Requests the provider billed (answers recorded or refused). */
  billed: number;
}

interface ProviderBatchContext {
  runId: string;
  checkout: string;
  profile: Profile;
  requests: string;
  /** Told of every poll: the gate batch shows it in its current details and progress. */
  report: (progress: ProviderBatchProgress) => void;
}

/** Round 2 resubmits the expired requests. */
async function askProviderBatch(context: ProviderBatchContext, round: number, count: number, spend: Spend, only?: string[]): Promise<ProviderRound> {
  const { runId, checkout, profile } = context;
  const requests = { checkout, runId, profile, requests: context.requests, round, ...(only !== undefined && { only }) };
  const submitted = await batchActivities.submitProviderBatch.executeWithOptions({ summary: `submit ${count} requests as a provider batch (round ${round})` }, [
    requests,
  ]);
  const { batches } = submitted;
  let waitSeconds: number = BATCH_POLL.firstSeconds;
  try {
    for (;;) {
      const state = await batchActivities.pollProviderBatch.executeWithOptions({ summary: `poll provider batch ${batches.join(', ')}` }, [
        { checkout, profile, batches },
      ]);
      context.report({ round, batches, counts: state.counts });
      if (state.ended) break;
      await sleep(waitSeconds * 1000);
      waitSeconds = Math.min(waitSeconds * 2, BATCH_POLL.longestSeconds);
    }
  } catch (error) {
    // A cancelled sweep cancels its provider batch: requests not yet run are not paid for.
    if (isCancellation(error))
      await CancellationScope.nonCancellable(() =>
        batchActivities.cancelProviderBatch.executeWithOptions({ summary: `cancel provider batch ${batches.join(', ')}` }, [{ checkout, profile, batches }]),
      );
    throw error;
  }
  const collected = await batchActivities.collectProviderBatch.executeWithOptions({ summary: `collect provider batch ${batches.join(', ')}` }, [
    { ...requests, batches },
  ]);
  // Every answer the provider billed counts as it is collected, the refused ones too.
  spend.addTotals(collected.billed);
  recordBilledTotals(metricMeter, profile, collected.billed);
  return {
    batches,
    answered: collected.answered,
    errored: new Map(Object.entries(collected.errored)),
    expired: collected.expired,
    billed: collected.billed.launches,
  };
}

export interface BatchedOutcome {
  answered: SweepUnit[];
  /** Units whose requests expired twice (asked live on the resume), or were not answered when the provider was unreachable. */
  expired: SweepUnit[];
  /** Units not submitted: the cap had no room for them (asked on the resume, under the raised cap). */
  deferred: SweepUnit[];
  /** Requests billed in this execution's rounds (the batch's tries). */
  billed?: number;
  stop?: StopOf<'launch-failed'> | StopOf<'spend-limit'>;
}

/**
 * The units' first attempts as a provider batch; an expired request is resubmitted once, and an errored one's unit asked live. Under
 * `--max-cost` only the units the cap has room for (at the mean launch so far) are submitted; the rest are a `spend-limit` stop.
 */
export async function batchedUnits(context: ProviderBatchContext, all: SweepUnit[], spend: Spend): Promise<BatchedOutcome> {
  // A sweep already at its `--max-cost` cap submits nothing: its units reach the cap's stop in the gather, as live ones do.
  if (spend.over() !== undefined) return { answered: [], expired: [], deferred: [] };
  const fit = spend.fit(all.length);
  const capped = fit.stop !== undefined ? fit : undefined;
  const units = capped ? all.slice(0, capped.fits) : all;
  const deferred = capped ? all.slice(capped.fits) : [];
  const capStop = capped?.stop;
  // Past `over()` the cap has room for one at least; this guards the float arithmetic from submitting an empty batch.
  if (units.length === 0) return { answered: [], expired: [], deferred, ...(capStop && { stop: capStop }) };
  const prepared = await batchActivities.prepareProviderRequests.executeWithOptions({ summary: `capture ${units.length} units for a provider batch` }, [
    { checkout: context.checkout, runId: context.runId, profile: context.profile, units, name: context.requests },
  ]);
  const unanswered = new Set<string>();
  let expiredKeys: string[] = [];
  let batches: string[] = [];
  const evidence = { evidence: `kb/reports/state/review/runs/${context.runId}/provider-batches.json` };
  let only: string[] | undefined;
  let billed = 0;
  for (const round of prepared.requests > 0 ? [1, 2] : []) {
    let asked: ProviderRound;
    try {
      asked = await askProviderBatch(context, round, only?.length ?? prepared.requests, spend, only);
    } catch (error) {
      // The provider unreachable through every retry (or a submission that cannot be told apart): the units not answered stop; the ledger keeps what was submitted.
      if (!(error instanceof ActivityFailure) || isCancellation(error)) throw error;
      // Every unit goes back: on the resume, those answered meanwhile are judged from the run's answers, the rest submitted again.
      return {
        answered: [],
        expired: units,
        deferred,
        stop: {
          kind: 'launch-failed',
          disposition: 'inspect',
          reason: `provider batch of ${units.length} units: ${error.cause?.message ?? error.message}`.slice(0, 500),
          ...evidence,
        },
      };
    }
    batches = asked.batches;
    billed += asked.billed;
    for (const key of asked.errored.keys()) unanswered.add(key);
    expiredKeys = asked.expired;
    if (expiredKeys.length === 0) break;
    only = expiredKeys;
  }
  const expiredSet = new Set(expiredKeys);
  const answered = units.filter((unit) => !unanswered.has(unit.key) && !expiredSet.has(unit.key));
  if (expiredKeys.length === 0) return { answered, expired: [], deferred, billed, ...(capStop && { stop: capStop }) };
  // An expired request is not billed: a resume asks these units live rather than in a third batch.
  const expired = units.filter((unit) => expiredSet.has(unit.key)).map((unit): SweepUnit => ({ ...unit, live: true }));
  return {
    answered,
    expired,
    deferred,
    billed,
    stop: {
      kind: 'launch-failed',
      disposition: 'inspect',
      reason: `${expired.length} request${expired.length === 1 ? '' : 's'} of provider batch ${batches.join(', ')} expired again after one resubmission (a resume asks ${expired.length === 1 ? 'it' : 'them'} live): ${expired.slice(0, 3).map(unitName).join('; ')}${expired.length > 3 ? '; …' : ''}`,
      ...evidence,
    },
  };
}
