/**
 * The one loop over gate-batch children that a gate sweep and a compare run's route share: run a
 * batch as a child workflow, add its counts, record its problems; on a stop, wait it out (the
 * parent's lifecycle) and run the batch again over the units it left; otherwise go to the next.
 */
import { executeChild, type ChildWorkflowOptions } from '@temporalio/workflow';
import type { SweepCounts, SweepProblem, SweepUnit } from '../review/sweep-types.js';
import { addCounts } from '../review/sweep-types.js';
import type { Stop } from '../runs/stop.js';
import type { Pace } from './asking/pace.js';
import { gateBatch, type GateBatchInput, type GateBatchResult } from './gate-batch.js';

/** Where the loop stands: the batch, its resumes (the child's ID is numbered by them), the units a stop left, the lowered pace. */
export interface BatchPosition {
  batch: number;
  resumes: number;
  remaining?: SweepUnit[];
  pace?: Pace;
}

/** One child as its parent names it: its workflow ID, what it asks (the loop adds the batch, the units left and the pace), and how the Web UI shows it. */
export interface BatchChild {
  workflowId: string;
  input: Omit<GateBatchInput, 'batch' | 'units' | 'pace'>;
  options: Pick<ChildWorkflowOptions, 'staticSummary' | 'staticDetails' | 'typedSearchAttributes'>;
}

export interface BatchLoop {
  /** How many batches the loop asks. */
  batches: number;
  /** Where it begins: a sweep carries its position across continue-as-new; absent, the first batch. */
  from?: BatchPosition;
  /** The parent's counts, which each batch's counts are added to. */
  counts: SweepCounts;
  /** The parent's state its progress shows: the child running now. */
  state: { currentBatch?: string };
  /** The child for a position (the parent also names its stage here). */
  child: (at: BatchPosition) => BatchChild;
  /** After a child came back, its counts added. */
  returned?: (result: GateBatchResult) => void;
  /** Records a batch's problems where the parent keeps them. */
  problems: (problems: SweepProblem[], at: BatchPosition) => Promise<void>;
  /** Waits out a batch's stop: the parent's lifecycle (`waitOut`). */
  waitOut: (stop: Stop) => Promise<void>;
  /** After a batch finished, the position moved to the next (a sweep may continue as new here). */
  finished?: (at: BatchPosition) => Promise<void>;
}

/** Asks the batches one at a time in child workflows, each stop waited out and its batch asked again over what it left. */
export async function runBatches(loop: BatchLoop): Promise<void> {
  const at: BatchPosition = loop.from ?? { batch: 0, resumes: 0 };
  while (at.batch < loop.batches) {
    const child = loop.child(at);
    loop.state.currentBatch = child.workflowId;
    const result: GateBatchResult = await executeChild(gateBatch, {
      workflowId: child.workflowId,
      args: [{ ...child.input, batch: at.batch, ...(at.pace && { pace: at.pace }), ...(at.remaining && { units: at.remaining }) }],
      ...child.options,
    });
    addCounts(loop.counts, result.counts);
    at.pace = result.pace ?? at.pace;
    loop.returned?.(result);
    if (result.problems.length > 0) await loop.problems(result.problems, at);
    loop.state.currentBatch = undefined;
    if (result.stop) {
      at.remaining = result.remaining;
      await loop.waitOut(result.stop);
      at.resumes += 1;
      continue;
    }
    at.remaining = undefined;
    at.resumes = 0;
    at.batch += 1;
    await loop.finished?.(at);
  }
}
