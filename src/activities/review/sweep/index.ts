/** All of a sweep's I/O, one module per step; each takes its checkout and run in its input. */
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
