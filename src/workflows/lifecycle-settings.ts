import type { QueryDefinition } from '@temporalio/workflow';
import type { UpdateDefinition } from '@temporalio/common';
import type { SpendTotals } from '../runs/spend.js';
import type { AcknowledgeAnswer, ApprovalAnswer, LifecycleProgress, Proposal, ResumeRequest, Stop } from '../runs/stop.js';
import type { RunViewSettings } from './lifecycle-view.js';

export interface LifecycleUpdates<P> {
  resume: UpdateDefinition<P, [ResumeRequest]>;
  approve?: UpdateDefinition<P, [ApprovalAnswer]>;
  acknowledge?: UpdateDefinition<P, [AcknowledgeAnswer]>;
  /** Refuses an answer's text that cannot be applied (a selection list that does not parse); a message, or undefined. */
  checkAnswer?: (answer: ApprovalAnswer, proposal: Proposal) => string | undefined;
}

export interface LifecycleSettings<P extends LifecycleProgress> {
  runId: string;
  /** The progress query, and the workflow's own fields over the lifecycle's common part. */
  progress: { query: QueryDefinition<P>; build: (common: LifecycleProgress) => P };
  updates: LifecycleUpdates<P>;
  /** How the run reads in the Web UI, and the commands its stops name (lifecycle-view.ts). */
  view: RunViewSettings;
  /** Wait for a usage limit's reset time on a durable timer and go on. */
  autoResume: boolean;
  /** `--max-cost` in USD; the totals its launches add to (a sweep's counts); what earlier executions spent against the same cap. */
  spend?: { maxCostUsd?: number; totals?: SpendTotals; before?: SpendTotals };
  /** Before a resume is taken (an environment assertion): a stop to stay in instead, or undefined to go on. */
  beforeResume?: () => Promise<Stop | undefined>;
  /** After the run entered or stayed in a stop, and after a resume (records the run's state file). */
  changed?: () => Promise<void>;
}
