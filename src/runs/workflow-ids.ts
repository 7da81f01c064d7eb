/**
 * Every workflow ID the project starts, built here and read back here: a run's identity on the
 * namespace (docs/ARCHITECTURE §8). IDs carry the checkout's ID where runs of two checkouts could
 * meet, so checkouts sharing a namespace never collide:
 *
 * | kind | workflow ID |
 * | --- | --- |
 * | `analysis` | `analysis/<checkout>/<run>` (run `AAS-…`) |
 * | `gates` | `gates/<run>`, run `GS-<checkout>-<digest10>`; a schedule's `gates/GS-<checkout>-scheduled-<name>` (the server appends its start time) |
 * | `gate-batch` | `<sweep's ID>/batch-<n>`, `-r<k>` after the k-th resume of a stopped batch |
 * | `compare` | `compare/<run>`, run `CMP-<checkout>-<digest10>` |
 * | `compare-batch` | `<compare run's ID>/<route>/batch-<n>`, `-r<k>` likewise |
 * | `full-pass`, `revise` | `<kind>/<checkout>/<note path>/<hash12>` |
 * | `probe` | `probe/<profile>/<UTC stamp>-<nonce>` |
 * | `quota` | `quota/<account>` (one gate per account on the namespace) |
 *
 * Run state is kept apart per namespace by these IDs: in the `default` namespace a sweep's or compare
 * run's identity digest is what it always was; in any other namespace the digest also covers the
 * namespace's name (`namespacedIdentity`), and a scheduled sweep's run ID carries it, so two namespaces'
 * runs of one checkout never share a run ID, a workflow ID or a run directory (docs/temporal.md).
 *
 * `test/static/workflow-ids.test.ts` fails when another module writes a template literal beginning
 * with one of these prefixes.
 *
 * PURE MODULE: string code only; workflows import it.
 */

/** The kinds of workflow, by their ID. */
export type WorkflowKind = 'analysis' | 'gates' | 'gate-batch' | 'compare' | 'compare-batch' | 'full-pass' | 'revise' | 'probe' | 'quota';

/** An editing run's kind: its workflow and the first word of its ID. */
export type EditWorkflowKind = 'full-pass' | 'revise';

/** The first segment of each kind's ID; a batch's ID begins with its parent's. */
export const WORKFLOW_ID_PREFIXES = ['analysis/', 'gates/', 'compare/', 'full-pass/', 'revise/', 'probe/', 'quota/'] as const;

/** The part of a sweep's or compare run's identity digest its run ID carries. */
const RUN_DIGEST_DIGITS = 10;
/** The part of the note text's hash an editing run's workflow ID carries. */
export const HASH_DIGITS = 12;

const SWEEP_RUN = 'GS-';
const DEFAULT_NAMESPACE = 'default';
const COMPARE_RUN = 'CMP-';
const BATCH = /\/batch-\d+(?:-r\d+)?$/;

/** `-r<k>` after the k-th resume of a stopped batch: a batch run again gets a fresh workflow ID. */
const resumed = (resumes: number) => (resumes > 0 ? `-r${resumes}` : '');

// --- analysis

export const analysisWorkflowId = (checkoutId: string, runId: string) => `analysis/${checkoutId}/${runId}`;

// --- gate sweeps and their batches

/** A sweep's run ID: the checkout's ID and the start of the digest of its identity (selection, grouping, profile, what it retries). */
export const sweepRunId = (checkoutId: string, identityDigest: string) => `${SWEEP_RUN}${checkoutId}-${identityDigest.slice(0, RUN_DIGEST_DIGITS)}`;

/** The namespace's part of a run's identity: nothing in `default` (the IDs runs always had there), the namespace's name in any other. */
export const namespacedIdentity = (namespace: string): string[] => (namespace === DEFAULT_NAMESPACE ? [] : [namespace]);

/** The run ID a schedule's sweeps start under (the server appends each start's time to the workflow ID); outside `default` it names the namespace. */
export const scheduledSweepRunId = (checkoutId: string, name: string, namespace: string = DEFAULT_NAMESPACE) =>
  `${SWEEP_RUN}${checkoutId}-${namespace === DEFAULT_NAMESPACE ? '' : `${namespace}-`}scheduled-${name}`;

export const sweepWorkflowId = (runId: string) => `gates/${runId}`;

/** What every sweep of one checkout's workflow ID begins with (a visibility query's `STARTS_WITH`). */
export const checkoutSweepsPrefix = (checkoutId: string) => sweepWorkflowId(`${SWEEP_RUN}${checkoutId}-`);

/** A sweep schedule's ID: namespaced so `temporal schedule list` shows which are sweeps. */
export const sweepScheduleId = (name: string) => `gates-${name}`;

/** A sweep's batch child: `batch` counts from 0, the ID from 1. */
export const gateBatchId = (sweepWorkflowId: string, batch: number, resumes: number) => `${sweepWorkflowId}/batch-${batch + 1}${resumed(resumes)}`;

// --- compare runs and their batches

/** A compare run's run ID: the checkout's ID and the start of the digest of what it asks. */
export const compareRunId = (checkoutId: string, identityDigest: string) => `${COMPARE_RUN}${checkoutId}-${identityDigest.slice(0, RUN_DIGEST_DIGITS)}`;

export const compareWorkflowId = (runId: string) => `compare/${runId}`;

/** A compare run's batch child for one route (`route` as its asking run's ID ends). */
export const compareBatchId = (compareWorkflowId: string, route: string, batch: number, resumes: number) =>
  `${compareWorkflowId}/${route}/batch-${batch + 1}${resumed(resumes)}`;

// --- editing runs

/** The workflow ID of an editing run over one note text. */
export const editWorkflowId = (kind: EditWorkflowKind, checkoutId: string, note: string, textSha256: string) =>
  `${kind}/${checkoutId}/${note}/${textSha256.slice(0, HASH_DIGITS)}`;

// --- probes and quota gates

/** A probe's workflow ID: readable and unique, from the profile, the start time (UTC, to the second) and a nonce. */
export function probeWorkflowId(profile: string, startedAt: Date, nonce: string): string {
  const stamp = startedAt
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return `probe/${profile}/${stamp}-${nonce}`;
}

/** The quota gate's workflow ID: one per account on the namespace. */
export const quotaGateId = (account: string) => `quota/${account}`;

// --- reading IDs back

const after = (id: string, prefix: string) => (id.startsWith(prefix) ? id.slice(prefix.length) : undefined);

/** An analysis run's run ID: its workflow ID's last segment. */
export const analysisRunIdOf = (workflowId: string) => workflowId.slice(workflowId.lastIndexOf('/') + 1);

/** A batch's workflow ID without its `/batch-<n>` (and `-r<k>`): a sweep's batch gives the sweep's ID; any other ID is returned as it is. */
export const withoutBatchSegment = (workflowId: string) => workflowId.replace(BATCH, '');

/** The kind of workflow an ID names, or undefined when none of ours. */
export function workflowKindOf(workflowId: string): WorkflowKind | undefined {
  if (workflowId.startsWith('gates/')) return BATCH.test(workflowId) ? 'gate-batch' : 'gates';
  if (workflowId.startsWith('compare/')) return BATCH.test(workflowId) ? 'compare-batch' : 'compare';
  const prefix = WORKFLOW_ID_PREFIXES.find((candidate) => workflowId.startsWith(candidate));
  return prefix?.slice(0, -1) as WorkflowKind | undefined;
}

/** The kind of editing run a workflow ID names, or undefined when it is not an editing run's. */
export function editKindOf(workflowId: string): EditWorkflowKind | undefined {
  const kind = workflowKindOf(workflowId);
  return kind === 'full-pass' || kind === 'revise' ? kind : undefined;
}

/** What follows `gates/` in a workflow ID (a batch's ID keeps its `/batch-…`), or undefined for another kind. */
export const afterSweepPrefix = (workflowId: string) => after(workflowId, 'gates/');

/** The run ID of the sweep a `gates/…` ID belongs to (the sweep's or one of its batches'), or undefined for another kind. */
export const sweepRunIdOf = (workflowId: string) => afterSweepPrefix(workflowId)?.replace(/\/batch-.*$/, '');

/** The sweep an operator's RUN names by its form (`GS-…` or `gates/GS-…`): its run ID, else undefined. */
export function namedSweep(run: string): string | undefined {
  const runId = afterSweepPrefix(run) ?? run;
  return runId.startsWith(SWEEP_RUN) ? runId : undefined;
}

/** The name a sweep schedule's ID carries, or undefined when the schedule is no sweep's. */
export const scheduleNameOf = (scheduleId: string) => after(scheduleId, 'gates-');

/** The compare run an operator's RUN names by its form (`CMP-…` or `compare/CMP-…`): its run ID, else undefined. */
export function namedCompareRun(run: string): string | undefined {
  const runId = after(run, 'compare/') ?? run;
  return runId.startsWith(COMPARE_RUN) ? runId : undefined;
}

/** What follows `compare/` in a workflow ID, or the argument as it is. */
export const compareRunIdOf = (run: string) => after(run, 'compare/') ?? run;

/**
 * The ID of the checkout a run works on, as its workflow ID carries it: `analysis/<checkout>/…`,
 * `full-pass/<checkout>/…` and `revise/<checkout>/…`, `gates/GS-<checkout>-…` and
 * `compare/CMP-<checkout>-…` (their batches begin with their parent's ID); undefined for a probe, a quota
 * gate or an ID that is none of ours.
 */
export function workflowCheckoutId(workflowId: string): string | undefined {
  const found =
    /^(?:analysis|full-pass|revise)\/([0-9a-f]{8})\//.exec(workflowId) ??
    /^gates\/GS-([0-9a-f]{8})-/.exec(workflowId) ??
    /^compare\/CMP-([0-9a-f]{8})-/.exec(workflowId);
  return found?.[1];
}

/** The account a quota gate's workflow ID names. */
export const quotaAccountOf = (workflowId: string) => after(workflowId, 'quota/') ?? workflowId;
