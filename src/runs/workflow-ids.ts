/**
 * Every workflow ID, built and read back here (docs/ARCHITECTURE §8; test/static/workflow-ids.test.ts guards it). IDs carry the
 * checkout's ID, and outside `default` the namespace (`namespacedIdentity`), so runs of two checkouts or namespaces never collide. PURE MODULE.
 */

export type WorkflowKind = 'analysis' | 'gates' | 'gate-batch' | 'compare' | 'compare-batch' | 'full-pass' | 'revise' | 'probe' | 'quota';

export type EditWorkflowKind = 'full-pass' | 'revise';

/** The first segment of each kind's ID; a batch's ID begins with its parent's. */
export const WORKFLOW_ID_PREFIXES = ['analysis/', 'gates/', 'compare/', 'full-pass/', 'revise/', 'probe/', 'quota/'] as const;

const RUN_DIGEST_DIGITS = 10;
/** Of the note text's hash, in an editing run's workflow ID. */
export const HASH_DIGITS = 12;

const SWEEP_RUN = 'GS-';
const DEFAULT_NAMESPACE = 'default';
const COMPARE_RUN = 'CMP-';
const BATCH = /\/batch-\d+(?:-r\d+)?$/;

/** `-r<k>` after the k-th resume of a stopped batch: a batch run again gets a fresh workflow ID. */
const resumed = (resumes: number) => (resumes > 0 ? `-r${resumes}` : '');

export const analysisWorkflowId = (checkoutId: string, runId: string) => `analysis/${checkoutId}/${runId}`;

/** `GS-<checkout>-<digest10>` of the sweep's identity (selection, grouping, profile, what it retries). */
export const sweepRunId = (checkoutId: string, identityDigest: string) => `${SWEEP_RUN}${checkoutId}-${identityDigest.slice(0, RUN_DIGEST_DIGITS)}`;

/** Nothing in `default` (the IDs runs always had there), the namespace's name in any other. */
export const namespacedIdentity = (namespace: string): string[] => (namespace === DEFAULT_NAMESPACE ? [] : [namespace]);

/** The server appends each start's time to the workflow ID. */
export const scheduledSweepRunId = (checkoutId: string, name: string, namespace: string = DEFAULT_NAMESPACE) =>
  `${SWEEP_RUN}${checkoutId}-${namespace === DEFAULT_NAMESPACE ? '' : `${namespace}-`}scheduled-${name}`;

export const sweepWorkflowId = (runId: string) => `gates/${runId}`;

/** For a visibility query's `STARTS_WITH`. */
export const checkoutSweepsPrefix = (checkoutId: string) => sweepWorkflowId(`${SWEEP_RUN}${checkoutId}-`);

/** A sweep schedule's ID: namespaced so `temporal schedule list` shows which are sweeps. */
export const sweepScheduleId = (name: string) => `gates-${name}`;

/** A sweep's batch child: `batch` counts from 0, the ID from 1. */
export const gateBatchId = (sweepWorkflowId: string, batch: number, resumes: number) => `${sweepWorkflowId}/batch-${batch + 1}${resumed(resumes)}`;

export const compareRunId = (checkoutId: string, identityDigest: string) => `${COMPARE_RUN}${checkoutId}-${identityDigest.slice(0, RUN_DIGEST_DIGITS)}`;

export const compareWorkflowId = (runId: string) => `compare/${runId}`;

/** A compare run's batch child for one route (`route` as its asking run's ID ends). */
export const compareBatchId = (compareWorkflowId: string, route: string, batch: number, resumes: number) =>
  `${compareWorkflowId}/${route}/batch-${batch + 1}${resumed(resumes)}`;

export const editWorkflowId = (kind: EditWorkflowKind, checkoutId: string, note: string, textSha256: string) =>
  `${kind}/${checkoutId}/${note}/${textSha256.slice(0, HASH_DIGITS)}`;

/** `probe/<profile>/<UTC stamp>-<nonce>`: readable and unique. */
export function probeWorkflowId(profile: string, startedAt: Date, nonce: string): string {
  const stamp = startedAt
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return `probe/${profile}/${stamp}-${nonce}`;
}

export const quotaGateId = (account: string) => `quota/${account}`;

const after = (id: string, prefix: string) => (id.startsWith(prefix) ? id.slice(prefix.length) : undefined);

export const analysisRunIdOf = (workflowId: string) => workflowId.slice(workflowId.lastIndexOf('/') + 1);

/** A batch's workflow ID without its `/batch-<n>` (and `-r<k>`): a sweep's batch gives the sweep's ID; any other ID is returned as it is. */
export const withoutBatchSegment = (workflowId: string) => workflowId.replace(BATCH, '');

export function workflowKindOf(workflowId: string): WorkflowKind | undefined {
  if (workflowId.startsWith('gates/')) return BATCH.test(workflowId) ? 'gate-batch' : 'gates';
  if (workflowId.startsWith('compare/')) return BATCH.test(workflowId) ? 'compare-batch' : 'compare';
  const prefix = WORKFLOW_ID_PREFIXES.find((candidate) => workflowId.startsWith(candidate));
  return prefix?.slice(0, -1) as WorkflowKind | undefined;
}

export function editKindOf(workflowId: string): EditWorkflowKind | undefined {
  const kind = workflowKindOf(workflowId);
  return kind === 'full-pass' || kind === 'revise' ? kind : undefined;
}

/** What follows `gates/` in a workflow ID (a batch's ID keeps its `/batch-…`), or undefined for another kind. */
export const afterSweepPrefix = (workflowId: string) => after(workflowId, 'gates/');

/** The sweep's run ID, for the sweep's or one of its batches' workflow ID. */
export const sweepRunIdOf = (workflowId: string) => afterSweepPrefix(workflowId)?.replace(/\/batch-.*$/, '');

/** `GS-…` or `gates/GS-…`. */
export function namedSweep(run: string): string | undefined {
  const runId = afterSweepPrefix(run) ?? run;
  return runId.startsWith(SWEEP_RUN) ? runId : undefined;
}

/** The name a sweep schedule's ID carries, or undefined when the schedule is no sweep's. */
export const scheduleNameOf = (scheduleId: string) => after(scheduleId, 'gates-');

/** `CMP-…` or `compare/CMP-…`. */
export function namedCompareRun(run: string): string | undefined {
  const runId = after(run, 'compare/') ?? run;
  return runId.startsWith(COMPARE_RUN) ? runId : undefined;
}

/** What follows `compare/` in a workflow ID, or the argument as it is. */
export const compareRunIdOf = (run: string) => after(run, 'compare/') ?? run;

/** Undefined for a probe, a quota gate or an ID that is none of ours. */
export function workflowCheckoutId(workflowId: string): string | undefined {
  const found =
    /^(?:analysis|full-pass|revise)\/([0-9a-f]{8})\//.exec(workflowId) ??
    /^gates\/GS-([0-9a-f]{8})-/.exec(workflowId) ??
    /^compare\/CMP-([0-9a-f]{8})-/.exec(workflowId);
  return found?.[1];
}

export const quotaAccountOf = (workflowId: string) => after(workflowId, 'quota/') ?? workflowId;
