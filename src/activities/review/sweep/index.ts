/**
 * The gate sweep's activities: all of a sweep's I/O, one module per step — preparing the selection,
 * capturing a unit, accepting its answer (the checkout guard first), a model-API unit in one step, the
 * run's answers, provider batches, recording problems. They need
 * nothing but the filesystem: each takes its checkout and run in its input.
 */
import type { SubmitBatchInput } from '../../../harness/batches/batch-contract.js';
import type { LaunchInput, LaunchResult } from '../../../harness/launch-contract.js';
import type { FaultPoints } from '../../faults.js';
import { acceptUnit, acceptUnits } from './accept.js';
import { captureUnit } from './capture.js';
import { sweepGuardBaseline } from './guard.js';
import { loadBatch, prepareSweep } from './prepare.js';
import { finishSweep, recordProblems } from './problems.js';
import { createReviewUnit } from './review-unit.js';
import { cancelProviderBatch, collectProviderBatch, pollProviderBatch, prepareProviderRequests, submitProviderBatch } from './provider-batch.js';

/** Every sweep activity under its registered name. */
export function createSweepActivities(dependencies: { faults?: FaultPoints; launch: (input: LaunchInput) => Promise<LaunchResult> }) {
  const { faults } = dependencies;
  return {
    reviewUnit: createReviewUnit({ launch: dependencies.launch, ...(faults !== undefined && { faults }) }),
    prepareSweep,
    loadBatch,
    captureUnit,
    acceptUnit,
    acceptUnits,
    prepareProviderRequests,
    recordProblems,
    finishSweep,
    sweepGuardBaseline,
    submitProviderBatch: (input: SubmitBatchInput) => submitProviderBatch(input, faults),
    pollProviderBatch,
    collectProviderBatch,
    cancelProviderBatch,
  };
}
