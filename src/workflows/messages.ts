/**
 * Every query, Update and signal a workflow answers, defined once and typed for the client: the
 * CLI imports them from here (or from the workflow module that re-exports them) and workflows set
 * their handlers on these same definitions. The names are the wire names recorded histories and
 * running workflows use: they never change.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { AnalysisProgress } from '../analysis/progress.js';
import type { EditProgress } from '../review/edit/types.js';
import type { SweepCounts, SweepProgress } from '../review/sweep-types.js';
import type { CompareProgress } from '../review/compare/run-types.js';
import { QUOTA_GATE, type LimitReport, type QuotaGateView, type QuotaState } from '../runs/quota.js';
import type { ProviderBatchProgress } from '../harness/batches/batch-contract.js';
import type { AcknowledgeAnswer, ApprovalAnswer, LifecycleProgress, ResumeRequest } from '../runs/stop.js';

/** A gate batch's progress: the lifecycle's part, its batch, counts and units left and in flight. */
export type BatchProgress = LifecycleProgress & {
  batch: number;
  counts: SweepCounts;
  left: number;
  inFlight: number;
  /** Where the batch's provider batch stands (a `--batch` sweep). */ provider?: ProviderBatchProgress;
};
/** A probe's progress: the lifecycle's part and the profile it probes. */
export type ProbeProgress = LifecycleProgress & { profile: string };

// Analysis.
export const analysisProgressQuery = defineQuery<AnalysisProgress>('progress');
/** Continues a stopped run; its validator refuses when there is nothing to resume (a run that is not stopped, or one that ended). */
export const analysisResumeUpdate = defineUpdate<AnalysisProgress, [ResumeRequest]>('resume');

// Gate sweep and its batches.
export const sweepProgressQuery = defineQuery<SweepProgress>('progress');
export const sweepResumeUpdate = defineUpdate<SweepProgress, [ResumeRequest]>('resume');
/** The operator owns the KB paths a checkout-changed stop reported; the sweep goes on. */
export const sweepAcknowledgeUpdate = defineUpdate<SweepProgress, [AcknowledgeAnswer]>('acknowledge');
export const batchProgressQuery = defineQuery<BatchProgress>('batchProgress');
/** A batch's stops are its parent sweep's: the Update is refused like any run's with nothing to resume. */
export const batchResumeUpdate = defineUpdate<BatchProgress, [ResumeRequest]>('resume');

// Compare runs (their routes are asked by gate batches).
export const compareProgressQuery = defineQuery<CompareProgress>('progress');
export const compareResumeUpdate = defineUpdate<CompareProgress, [ResumeRequest]>('resume');
/** The operator owns the KB paths a checkout-changed stop reported; the compare run goes on. */
export const compareAcknowledgeUpdate = defineUpdate<CompareProgress, [AcknowledgeAnswer]>('acknowledge');

// Editing runs (full pass, revision).
export const editProgressQuery = defineQuery<EditProgress>('progress');
/** The operator's answer to a proposal; the validator refuses a stale key, another proposal, changed inputs or an edited manifest. */
export const editApproveUpdate = defineUpdate<EditProgress, [ApprovalAnswer]>('approve');
/** The operator owns the paths a checkout-changed stop reported; the run goes on. */
export const editAcknowledgeUpdate = defineUpdate<EditProgress, [AcknowledgeAnswer]>('acknowledge');
/** Run the stopped step again (after a usage limit, failed launches or a conflict). */
export const editResumeUpdate = defineUpdate<EditProgress, [ResumeRequest]>('resume');

// Probe.
export const probeProgressQuery = defineQuery<ProbeProgress>('progress');
/** A probe never stops; the Update is refused like any run's with nothing to resume. */
export const probeResumeUpdate = defineUpdate<ProbeProgress, [ResumeRequest]>('resume');

// Quota gate.
/** A run that launches on the account: the gate signals it `quotaChanged` on every transition. */
export const subscribeSignal = defineSignal<[string]>(QUOTA_GATE.subscribe);
/** A usage limit one launch came to. */
export const limitSignal = defineSignal<[LimitReport]>(QUOTA_GATE.limit);
/** The operator opens the gate by hand; the argument says who (a run ID, or `commonplace quota open`). */
export const openSignal = defineSignal<[string]>(QUOTA_GATE.open);
/** Sent to every subscriber on every transition: the gate's state, versioned. */
export const quotaChangedSignal = defineSignal<[QuotaState]>(QUOTA_GATE.changed);
export const quotaStateQuery = defineQuery<QuotaGateView>(QUOTA_GATE.stateQuery);
