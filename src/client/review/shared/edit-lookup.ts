/** Finding an editing run by its run ID (its directory's run.json) or its workflow ID, for the commands that act on one. */
import type { Client, WorkflowHandle } from '@temporalio/client';
import path from 'node:path';
import { findCheckout } from '../../../checkout/index.js';
import { editKindOf } from '../../../runs/workflow-ids.js';
import { readRunRecord, runDirOf } from '../../../review/edit/runs.js';
import type { EditKind } from '../../../review/edit/types.js';
import { UserError } from '../../shared/errors.js';
import type { EditWorkflow } from './edit-follow.js';
import { workingOn } from '../../shared/command-line.js';

/** A run ID's workflow and directory, from its run.json: known before any server is asked. */
export async function recordedRun(kb: string | undefined, run: string): Promise<{ checkout: string; runId: string; workflowId: string; runDir: string }> {
  return recordedRunIn(workingOn(findCheckout(process.cwd(), kb).root), run);
}

/** The same, in a checkout already resolved. */
async function recordedRunIn(checkout: string, run: string): Promise<{ checkout: string; runId: string; workflowId: string; runDir: string }> {
  const workflowId = (await readRunRecord(checkout, run))?.workflowId;
  if (!workflowId) throw new UserError(`no run ${run} in ${checkout} (no ${path.join(runDirOf(checkout, run), 'run.json')})`);
  return { checkout, runId: run, workflowId, runDir: runDirOf(checkout, run) };
}

/** Finds a run by its run ID (its directory's run.json) or its workflow ID. */
export async function resolveRun(
  client: Client,
  kb: string | undefined,
  run: string,
): Promise<{ checkout: string; runId: string; workflowId: string; runDir: string; kind: EditKind; handle: WorkflowHandle<EditWorkflow> }> {
  const checkout = workingOn(findCheckout(process.cwd(), kb).root);
  let runId = run;
  let workflowId: string | undefined;
  if (run.includes('/')) {
    workflowId = run;
    const described = await client.workflow
      .getHandle(run)
      .describe()
      .catch(() => undefined);
    runId = (described?.memo?.runId as string | undefined) ?? '';
    if (!runId) throw new UserError(`no editing run with workflow ID ${run}`);
  } else {
    workflowId = (await recordedRunIn(checkout, run)).workflowId;
  }
  const kind = editKindOf(workflowId);
  if (kind === undefined) throw new UserError(`${workflowId} is not the workflow of an editing run (full-pass/… or revise/…)`);
  return { checkout, runId, workflowId, runDir: runDirOf(checkout, runId), kind, handle: client.workflow.getHandle<EditWorkflow>(workflowId) };
}
