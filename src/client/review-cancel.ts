import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Command } from 'commander';
import { kindOfWorkflowId } from '../review/edit/identity.js';
import { connectClient } from './connection.js';
import { describeEnded, endRun, graceMs, graceOption } from './end-run.js';
import { action, UserError } from './errors.js';
import { resolveRun } from './review-full-pass.js';

/** Whether the namespace has a workflow of this ID. */
async function exists(client: Client, workflowId: string): Promise<boolean> {
  try {
    await client.workflow.getHandle(workflowId).describe();
    return true;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return false;
    throw error;
  }
}

/** The workflow a run names: a workflow ID, a sweep's run ID (`gates/<run>`), or an editing run's ID (its run.json). */
async function workflowOf(client: Client, kb: string | undefined, run: string): Promise<{ workflowId: string; what: string }> {
  if (run.startsWith('gates/')) return { workflowId: run, what: `sweep ${run.slice('gates/'.length)}` };
  if (kindOfWorkflowId(run) !== undefined) {
    const found = await resolveRun(client, kb, run);
    return { workflowId: found.workflowId, what: `${found.kind} ${found.runId}` };
  }
  if (!run.includes('/') && (await exists(client, `gates/${run}`))) return { workflowId: `gates/${run}`, what: `sweep ${run}` };
  try {
    const found = await resolveRun(client, kb, run);
    return { workflowId: found.workflowId, what: `${found.kind} ${found.runId}` };
  } catch (error) {
    if (error instanceof UserError) throw new UserError(`no sweep or editing run ${run}: no workflow gates/${run}, and ${error.message}`);
    throw error;
  }
}

/**
 * `commonplace review cancel RUN`: ends a sweep or an editing run honestly — cancels it (its launches
 * are cancelled and it records `cancelled`), waits for it to close up to the grace period, and
 * terminates it only then; says which.
 */
export function registerCancel(review: Command): void {
  graceOption(
    review
      .command('cancel')
      .description('end a sweep or an editing run: cancel it, wait for it to close (up to --grace seconds), then terminate it if it has not')
      .argument('<run>', 'the sweep\'s run ID, the editing run\'s ID, or a workflow ID (gates/…, full-pass/…, revise/…)')
      .option('--kb <dir>', 'KB checkout, for an editing run (default: the Git root above the current directory that holds kb/)'),
  ).action(
    action(async (run: string, options: { kb?: string; grace?: string }) => {
      const grace = graceMs(options.grace);
      const client = await connectClient();
      const { workflowId, what } = await workflowOf(client, options.kb, run);
      const ended = await endRun(client.workflow.getHandle(workflowId), {
        graceMs: grace,
        reason: `cancelled by the operator (commonplace review cancel ${run}); it did not close within the grace period`,
        onWaiting: () => process.stderr.write(`cancelling ${workflowId}; waiting up to ${grace / 1000} s for it to close\n`),
      });
      if (ended.how === 'not-found') throw new UserError(`no workflow ${workflowId} on the server`);
      process.stdout.write(`${what}: ${describeEnded(workflowId, ended, grace)}\n`);
    }),
  );
}
