/** Every query, Update and signal, defined once for workflows and the CLI. The names are wire names recorded histories use: they never change. */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { AnalysisProgress } from '../analysis/progress.js';
import type { EditProgress } from '../review/edit/types.js';
import type { SweepCounts, SweepProgress } from '../review/sweep-types.js';
import type { CompareProgress } from '../review/compare/run-types.js';
import { QUOTA_GATE, type LimitReport, type QuotaGateView, type QuotaState } from '../runs/quota.js';
import type { ProviderBatchProgress } from '../harness/batches/batch-contract.js';
import type { AcknowledgeAnswer, ApprovalAnswer, LifecycleProgress, ResumeRequest } from '../runs/stop.js';

export type BatchProgress = LifecycleProgress & {
  batch: number;
  counts: SweepCounts;
  left: number;
  inFlight: number;
  provider?: ProviderBatchProgress;
};
export type ProbeProgress = LifecycleProgress & { profile: string };

// Analysis.
export const analysisProgressQuery = defineQuery<AnalysisProgress>('progress');
export const analysisResumeUpdate = defineUpdate<AnalysisProgress, [ResumeRequest]>('resume');

// Gate sweep and its batches.
export const sweepProgressQuery = defineQuery<SweepProgress>('progress');
export const sweepResumeUpdate = defineUpdate<SweepProgress, [ResumeRequest]>('resume');
export const sweepAcknowledgeUpdate = defineUpdate<SweepProgress, [AcknowledgeAnswer]>('acknowledge');
export const batchProgressQuery = defineQuery<BatchProgress>('batchProgress');
/** A batch's stops are its parent sweep's: the Update is always refused. */
export const batchResumeUpdate = defineUpdate<BatchProgress, [ResumeRequest]>('resume');

// Compare runs (their routes are asked by gate batches).
export const compareProgressQuery = defineQuery<CompareProgress>('progress');
export const compareResumeUpdate = defineUpdate<CompareProgress, [ResumeRequest]>('resume');
export const compareAcknowledgeUpdate = defineUpdate<CompareProgress, [AcknowledgeAnswer]>('acknowledge');

// Editing runs (full pass, revision).
export const editProgressQuery = defineQuery<EditProgress>('progress');
export const editApproveUpdate = defineUpdate<EditProgress, [ApprovalAnswer]>('approve');
export const editAcknowledgeUpdate = defineUpdate<EditProgress, [AcknowledgeAnswer]>('acknowledge');
export const editResumeUpdate = defineUpdate<EditProgress, [ResumeRequest]>('resume');

// Probe.
export const probeProgressQuery = defineQuery<ProbeProgress>('progress');
/** A probe never stops: the Update is always refused. */
export const probeResumeUpdate = defineUpdate<ProbeProgress, [ResumeRequest]>('resume');

// Quota gate.
export const subscribeSignal = defineSignal<[string]>(QUOTA_GATE.subscribe);
export const limitSignal = defineSignal<[LimitReport]>(QUOTA_GATE.limit);
/** The argument says who opened it (a run ID, or `commonplace quota open`). */
export const openSignal = defineSignal<[string]>(QUOTA_GATE.open);
export const quotaChangedSignal = defineSignal<[QuotaState]>(QUOTA_GATE.changed);
export const quotaStateQuery = defineQuery<QuotaGateView>(QUOTA_GATE.stateQuery);
