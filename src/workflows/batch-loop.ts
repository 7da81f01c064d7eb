/** The one loop over gate-batch children that a gate sweep and a compare run's route share. */
import { executeChild, workflowInfo, type ChildWorkflowOptions } from '@temporalio/workflow';
import type { SweepCounts, SweepProblem, SweepUnit } from '../review/sweep-types.js';
import { addCounts } from '../review/sweep-types.js';
import type { Stop } from '../runs/stop.js';
import { CommonplaceKind, CommonplaceProfile, CommonplaceStatus, CommonplaceSubject } from '../search-attributes.js';
import type { Pace } from './asking/pace.js';
import { gateBatch, type GateBatchInput, type GateBatchResult } from './gate-batch.js';

export interface BatchPosition {
  batch: number;
  /** The child's ID is numbered by them. */
  resumes: number;
  remaining?: SweepUnit[];
  pace?: Pace;
}

interface BatchChild {
  workflowId: string;
  /** The loop adds the batch, the units left and the pace. */
  input: Omit<GateBatchInput, 'batch' | 'units' | 'pace'>;
  options: Pick<ChildWorkflowOptions, 'staticSummary' | 'staticDetails' | 'typedSearchAttributes'>;
}

interface BatchLoop {
  batches: number;
  /** A sweep carries its position across continue-as-new; absent, the first batch. */
  from?: BatchPosition;
  /** The parent's counts, which each batch's counts are added to. */
  counts: SweepCounts;
  state: { currentBatch?: string };
  child: (at: BatchPosition) => BatchChild;
  returned?: (result: GateBatchResult) => void;
  problems: (problems: SweepProblem[], at: BatchPosition) => Promise<void>;
  waitOut: (stop: Stop) => Promise<void>;
  /** The position has moved to the next batch (a sweep may continue as new here). */
  finished?: (at: BatchPosition) => Promise<void>;
}

/** A batch's search attributes where its parent carries the project's: its own kind, the parent's subject, a profile, status running. */
export function batchSearchAttributes(kind: string, runId: string, profile: string): Pick<ChildWorkflowOptions, 'typedSearchAttributes'> {
  const parent = workflowInfo().typedSearchAttributes;
  if (parent.get(CommonplaceKind) === undefined) return {};
  return {
    typedSearchAttributes: [
      { key: CommonplaceKind, value: kind },
      { key: CommonplaceStatus, value: 'running' },
      { key: CommonplaceSubject, value: parent.get(CommonplaceSubject) ?? runId },
      { key: CommonplaceProfile, value: profile },
    ],
  };
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
