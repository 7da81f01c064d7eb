/** The action of `review cancel RUN`: find the run's workflow, end it honestly, and say how it ended. */
import type { Client } from '@temporalio/client';
import { afterSweepPrefix, editKindOf, namedCompareRun, sweepWorkflowId, compareWorkflowId } from '../../../runs/workflow-ids.js';
import { runCommand } from '../../../runs/run-commands.js';
import { connectClient } from '../../shared/connection.js';
import { describeEnded, describeExecution, endRun, graceMs } from '../../shared/run-end.js';
import { UserError } from '../../shared/errors.js';
import { printJson } from '../../shared/json-output.js';
import { resolveRun } from '../shared/edit-lookup.js';
import { rendered } from '../../shared/render-paths.js';

export interface CancelOptions {
  kb?: string;
  grace?: string;
  json?: boolean;
}

/** The workflow a run names: a workflow ID, a sweep's run ID, a compare run's, or an editing run's ID (its run.json). */
async function workflowOf(client: Client, kb: string | undefined, run: string): Promise<{ workflowId: string; what: string }> {
  const sweep = afterSweepPrefix(run);
  if (sweep !== undefined) return { workflowId: run, what: `sweep ${sweep}` };
  const compare = namedCompareRun(run);
  if (compare !== undefined) return { workflowId: compareWorkflowId(compare), what: `compare run ${compare}` };
  // A run ID (no `/`) is a sweep's when the server has its workflow, else an editing run's.
  const editing = editKindOf(run) !== undefined;
  if (!editing && !run.includes('/') && (await describeExecution(client.workflow.getHandle(sweepWorkflowId(run)))))
    return { workflowId: sweepWorkflowId(run), what: `sweep ${run}` };
  const found = await resolveRun(client, kb, run).catch((error: unknown) => {
    if (!editing && error instanceof UserError)
      throw new UserError(`no sweep or editing run ${run}: no workflow ${sweepWorkflowId(run)}, and ${error.message}`);
    throw error;
  });
  return { workflowId: found.workflowId, what: `${found.kind} ${found.runId}` };
}

/** `review cancel RUN`: exit 0 once the run is closed (cancelled, terminated after the grace period, or closed already); 1 otherwise. */
export async function runCancel(run: string, options: CancelOptions): Promise<void> {
  const grace = graceMs(options.grace);
  const client = await connectClient();
  const { workflowId, what } = await workflowOf(client, options.kb, run);
  const ended = await endRun(client.workflow.getHandle(workflowId), {
    graceMs: grace,
    reason: `cancelled by the operator (${runCommand.cancel(run)}); it did not close within the grace period`,
    onWaiting: () => process.stderr.write(`cancelling ${workflowId}; waiting up to ${grace / 1000} s for it to close\n`),
  });
  if (ended.how === 'not-found') throw new UserError(`no workflow ${workflowId} on the server`);
  const message = `${what}: ${describeEnded(workflowId, ended, grace)}`;
  if (options.json) {
    printJson('run-ended', 1, {
      run,
      workflowId,
      how: ended.how,
      executionStatus: ended.status,
      commonplaceStatus: ended.recorded ?? null,
      graceSeconds: grace / 1000,
      message,
    });
    return;
  }
  process.stdout.write(`${rendered(message)}\n`);
}
