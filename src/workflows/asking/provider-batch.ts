/**
 * A gate batch's units asked as one provider batch: submit (the batch's IDs recorded in history by
 * the activity's result before anything else), wait on durable timers polling with back-off,
 * collect by `custom_id`. Cancelling the run cancels the provider's batch. `batchedUnits` is a
 * batch's side: capture, submit under the cap, resubmit what expired once; each unit's path
 * (sweep-unit.ts) accepts its answer through the same checks as a live launch's.
 */
import { ActivityFailure, CancellationScope, isCancellation, metricMeter, proxyActivities, sleep } from '@temporalio/workflow';
import { recordBilled } from '../../observability/metrics.js';
import type { Activities } from '../../activities/index.js';
import { BATCH_ACTIVITY_ATTEMPTS, BATCH_POLL, type BatchRequestRef, type ProviderBatchProgress } from '../../harness/batches/batch-contract.js';

export type { ProviderBatchProgress } from '../../harness/batches/batch-contract.js';
import type { BilledTry, LaunchResult } from '../../harness/launch-contract.js';
import type { Profile } from '../../harness/profiles.js';
import type { CapturedUnit, SweepUnit } from '../../review/sweep-types.js';
import { batchRequest } from '../../review/unit-identity.js';
import type { StopOf } from '../../runs/stop.js';
import type { Spend } from '../spend-cap.js';
import { unitActivities, unitName, type UnitAnswer } from '../sweep-unit.js';

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
  /** Answers the provider billed that the check refused (their units are asked again live). */
  billed: BilledTry[];
}

export interface ProviderBatchContext {
  runId: string;
  checkout: string;
  profile: Profile;
  /** Told of every poll: the gate batch shows it in its current details and progress. */
  report: (progress: ProviderBatchProgress) => void;
}

/** Asks the units as one provider batch (round 1; round 2 resubmits expired requests) and comes back when it ended. */
export async function askProviderBatch(context: ProviderBatchContext, units: BatchedUnit[], round: number): Promise<ProviderRound> {
  const { runId, checkout, profile } = context;
  const requests: BatchRequestRef[] = units.map(({ unit, captured }) => batchRequest(unit.key, captured, `${runId}/${unit.key}/batch-${round}`));
  const submitted = await batchActivities.submitProviderBatch.executeWithOptions(
    { summary: `submit ${units.length} requests as a provider batch (round ${round})` },
    [{ checkout, runId, profile, requests, round }],
  );
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
    { checkout, runId, profile, batches, requests: requests.map((request) => ({ ...request, customId: submitted.customIds[request.unit]! })) },
  ]);
  return {
    batches,
    answered: new Map(Object.entries(collected.answered)),
    errored: new Map(Object.entries(collected.errored)),
    expired: collected.expired,
    billed: Object.values(collected.billed ?? {}),
  };
}

/** What a provider batch came to: the answers by unit key, and the units it hands back with its stop. */
export interface BatchedOutcome {
  answers: Map<string, UnitAnswer>;
  /** Units whose requests expired twice (asked live on the resume), or were not answered when the provider was unreachable. */
  expired: SweepUnit[];
  /** Units not submitted: the cap had no room for them (asked on the resume, under the raised cap). */
  deferred: SweepUnit[];
  stop?: StopOf<'launch-failed'> | StopOf<'spend-limit'>;
}

/**
 * The units' first attempts as a provider batch: each captured, submitted, waited for and collected;
 * a request that expired is resubmitted once. What it answered is accepted in the gather like a
 * launch's answer; an errored request's unit is asked live (the relaunch rule); a request that
 * expired twice is a `launch-failed` stop for its unit. Under `--max-cost`, only the units the cap
 * has room for (at the mean launch so far) are submitted; the rest are a `spend-limit` stop.
 */
export async function batchedUnits(context: ProviderBatchContext, all: SweepUnit[], spend: Spend): Promise<BatchedOutcome> {
  // A sweep already at its `--max-cost` cap submits nothing: its units reach the cap's stop in the gather, as live ones do.
  if (spend.over() !== undefined) return { answers: new Map(), expired: [], deferred: [] };
  const fit = spend.fit(all.length);
  const capped = fit.stop !== undefined ? fit : undefined;
  const units = capped ? all.slice(0, capped.fits) : all;
  const deferred = capped ? all.slice(capped.fits) : [];
  const capStop = capped?.stop;
  // Past `over()` the cap has room for one at least; this guards the float arithmetic from submitting an empty batch.
  if (units.length === 0) return { answers: new Map(), expired: [], deferred, ...(capStop && { stop: capStop }) };
  const captures: BatchedUnit[] = await Promise.all(
    units.map(async (unit) => ({
      unit,
      captured: await unitActivities.captureUnit.executeWithOptions({ summary: `capture ${unitName(unit)} for the provider batch` }, [
        { runId: context.runId, checkout: context.checkout, unit, attempt: 1, findings: [] },
      ]),
    })),
  );
  const answers = new Map<string, UnitAnswer>();
  let todo = captures;
  let batches: string[] = [];
  const runDir = captures[0]?.captured.dir.split('/launches/')[0];
  const evidence = runDir !== undefined ? { evidence: `${runDir}/provider-batches.json` } : {};
  for (const round of [1, 2]) {
    let asked: Awaited<ReturnType<typeof askProviderBatch>>;
    try {
      asked = await askProviderBatch(context, todo, round);
    } catch (error) {
      // The provider unreachable through every retry (or a submission that cannot be told apart): the units not answered stop; the ledger keeps what was submitted.
      if (!(error instanceof ActivityFailure) || isCancellation(error)) throw error;
      const expired = todo.map(({ unit }) => unit);
      return {
        answers,
        expired,
        deferred,
        stop: {
          kind: 'launch-failed',
          disposition: 'inspect',
          reason: `provider batch of ${expired.length} units: ${error.cause?.message ?? error.message}`.slice(0, 500),
          ...evidence,
        },
      };
    }
    batches = asked.batches;
    // A refused answer was billed: it counts in the spend, as a relaunched live one does.
    for (const billed of asked.billed) spend.addBilled(billed);
    recordBilled(metricMeter, context.profile, asked.billed);
    for (const { unit, captured } of todo) {
      const result = asked.answered.get(unit.key);
      if (result !== undefined) answers.set(unit.key, { captured, result });
    }
    const expired = new Set(asked.expired);
    todo = todo.filter(({ unit }) => expired.has(unit.key));
    if (todo.length === 0) return { answers, expired: [], deferred, ...(capStop && { stop: capStop }) };
  }
  // An expired request is not billed: a resume asks these units live rather than in a third batch.
  const expired = todo.map(({ unit }): SweepUnit => ({ ...unit, live: true }));
  return {
    answers,
    expired,
    deferred,
    stop: {
      kind: 'launch-failed',
      disposition: 'inspect',
      reason: `${expired.length} request${expired.length === 1 ? '' : 's'} of provider batch ${batches.join(', ')} expired again after one resubmission (a resume asks ${expired.length === 1 ? 'it' : 'them'} live): ${expired.slice(0, 3).map(unitName).join('; ')}${expired.length > 3 ? '; …' : ''}`,
      ...evidence,
    },
  };
}
