/** An analysis run's workflow, as `analysis run` starts it and `analysis inspect` reads it. */
import { memoFromWords, memoInWords } from '../../place-words.js';
import { WorkflowIdConflictPolicy, WorkflowIdReusePolicy, WorkflowNotFoundError, type Client, type WorkflowHandle } from '@temporalio/client';
import path from 'node:path';
import type { AnalysisInput } from '../../analysis/progress.js';
import { analysisWorkflowId } from '../../runs/workflow-ids.js';
import type { LocatedRun } from '../../activities/analysis/runs.js';
import { markdownText, runDetails } from '../../runs/run-details.js';
import { startingAttributes, TASK_QUEUE } from '../../search-attributes.js';
import { analysis as analysisWorkflow } from '../../workflows/analysis.js';
import { openCheckout } from '../../checkout/index.js';
import { UserError } from '../shared/errors.js';
import { portable, warnUnheld } from '../shared/checkout.js';
import { rendered as shown } from '../shared/render-paths.js';

/** Undefined when there is none; a workflow of the same ID made for another worktree is refused. */
export async function describe(handle: WorkflowHandle, run: LocatedRun): Promise<string | undefined> {
  let described;
  try {
    described = await handle.describe();
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return undefined;
    throw error;
  }
  const recorded = memoFromWords(described.memo?.worktree);
  const ours = await portable(run.worktree, run.parameters.checkout);
  const worktree = typeof recorded === 'string' ? shown(recorded) : undefined;
  if (typeof recorded === 'string' && recorded !== ours && path.resolve(shown(recorded)) !== path.resolve(run.worktree)) {
    throw new UserError(
      `workflow ${handle.workflowId} on this Temporal namespace belongs to the run in ${worktree}, not to ${run.worktree}; two checkouts prepared the same run ID — use another namespace (TEMPORAL_NAMESPACE) for one of them`,
    );
  }
  return described.status.name;
}

function analysisDetails(run: LocatedRun, input: AnalysisInput): string {
  const { parameters } = run;
  const source = `${parameters.source.kind} ${parameters.source.location}${parameters.source.revision ? ` at ${parameters.source.revision}` : ''}`;
  return runDetails(`analysis of ${parameters.system}`, [
    ['system', parameters.system],
    ['run ID', run.runId],
    ['profile', parameters.profile],
    ['checkout', parameters.checkout],
    ['worktree', run.worktree],
    ['branch', parameters.branch],
    ['preparation commit', parameters.preparationCommit],
    ['plan', parameters.plan],
    ['plan sha256', parameters.planSha256],
    ['layout', parameters.layout],
    ['layout sha256', parameters.layoutSha256],
    ['source', source],
    ['max cost (USD)', input.maxCostUsd],
    ['auto-resume', input.autoResume],
    ['profiles file', input.profilesFile],
  ]);
}

/** Starts the run's workflow (or attaches: USE_EXISTING is the run lock), with its summary, details and search attributes. */
export async function startRun(client: Client, run: LocatedRun, given: AnalysisInput): Promise<WorkflowHandle<typeof analysisWorkflow>> {
  // The input names the checkout by its ID, the worktree and run directory by paths under its worktrees root.
  const input = await portable(given, run.parameters.checkout);
  await warnUnheld(client, run.parameters.checkout);
  return client.workflow.start(analysisWorkflow, {
    taskQueue: TASK_QUEUE,
    workflowId: analysisWorkflowId(await openCheckout(run.parameters.checkout), run.runId),
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
    workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
    args: [input],
    memo: memoInWords({ worktree: input.worktree }),
    staticSummary: markdownText(`analysis of ${run.parameters.system}: run ${run.runId} (profile ${run.parameters.profile})`),
    // The details name the checkout, worktree and source as the input does: from their roots, not this host's paths.
    staticDetails: analysisDetails(await portable(run, run.parameters.checkout), input),
    typedSearchAttributes: startingAttributes('analysis', run.parameters.system, run.parameters.profile),
  });
}
