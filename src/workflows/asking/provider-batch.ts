/**
 * A gate batch's units asked as one provider batch: submit (the batch's IDs recorded in history by
 * the activity's result before anything else), wait on durable timers polling with back-off,
 * collect by `custom_id`. Cancelling the run cancels the provider's batch. The caller accepts each
 * answer through the same checks as a live launch's (gate-batch.ts).
 */
import { CancellationScope, isCancellation, proxyActivities, sleep } from '@temporalio/workflow';
import type { Activities } from '../../activities/index.js';
import { BATCH_ACTIVITY_ATTEMPTS, BATCH_POLL, type BatchRequestRef, type ProviderBatchProgress } from '../../harness/batches/batch-contract.js';

export type { ProviderBatchProgress } from '../../harness/batches/batch-contract.js';
import type { LaunchResult } from '../../harness/launch-contract.js';
import type { Profile } from '../../harness/profiles.js';
import type { CapturedUnit, SweepUnit } from '../../review/sweep-types.js';

const batchActivities = proxyActivities<Activities>({
  startToCloseTimeout: '10m',
  heartbeatTimeout: '30s',
  retry: { initialInterval: '10s', backoffCoefficient: 2, maximumInterval: '5m', maximumAttempts: BATCH_ACTIVITY_ATTEMPTS, nonRetryableErrorTypes: ['bad-launch-input', 'harness-missing'] },
});

/** A unit captured for the batch: what its request is built from and its answer accepted against. */
export interface BatchedUnit {
  unit: SweepUnit;
  captured: CapturedUnit;
}

/** What one provider round came to, by unit key. */
export interface ProviderRound {
  batches: string[];
  answered: Map<string, LaunchResult>;
  errored: Map<string, string>;
  expired: string[];
}

export interface ProviderBatchContext {
  runId: string;
  checkout: string;
  profile: Profile;
  /** Told of every poll: the gate batch shows it in its current details and progress. */
  report: (progress: ProviderBatchProgress) => void;
}

/** The answer key's input digests of a capture, as the live ask keys it. */
export function identityInputs(captured: CapturedUnit): Record<string, string> {
  return Object.fromEntries(Object.entries(captured.hashes).flatMap(([id, hash]) => [[`note ${id}`, hash.note], [id, hash.criterion]]));
}

/** Asks the units as one provider batch (round 1; round 2 resubmits expired requests) and comes back when it ended. */
export async function askProviderBatch(context: ProviderBatchContext, units: BatchedUnit[], round: number): Promise<ProviderRound> {
  const { runId, checkout, profile } = context;
  const requests: BatchRequestRef[] = units.map(({ unit, captured }) => ({ unit: unit.key, dir: captured.dir, launchId: `${runId}/${unit.key}/batch-${round}`, inputs: identityInputs(captured), outputs: captured.outputs }));
  const submitted = await batchActivities.submitProviderBatch.executeWithOptions({ summary: `submit ${units.length} requests as a provider batch (round ${round})` }, [{ checkout, runId, profile, requests, round }]);
  const { batches } = submitted;
  let waitSeconds: number = BATCH_POLL.firstSeconds;
  try {
    for (;;) {
      const state = await batchActivities.pollProviderBatch.executeWithOptions({ summary: `poll provider batch ${batches.join(', ')}` }, [{ checkout, profile, batches }]);
      context.report({ round, batches, counts: state.counts });
      if (state.ended) break;
      await sleep(waitSeconds * 1000);
      waitSeconds = Math.min(waitSeconds * 2, BATCH_POLL.longestSeconds);
    }
  } catch (error) {
    // A cancelled sweep cancels its provider batch: requests not yet run are not paid for.
    if (isCancellation(error)) await CancellationScope.nonCancellable(() => batchActivities.cancelProviderBatch.executeWithOptions({ summary: `cancel provider batch ${batches.join(', ')}` }, [{ checkout, profile, batches }]));
    throw error;
  }
  const collected = await batchActivities.collectProviderBatch.executeWithOptions({ summary: `collect provider batch ${batches.join(', ')}` }, [
    { checkout, runId, profile, batches, requests: requests.map((request) => ({ ...request, customId: submitted.customIds[request.unit]! })) },
  ]);
  return { batches, answered: new Map(Object.entries(collected.answered)), errored: new Map(Object.entries(collected.errored)), expired: collected.expired };
}
