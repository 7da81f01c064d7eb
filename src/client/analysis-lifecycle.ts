import { WorkflowNotFoundError } from '@temporalio/client';
import type { Command } from 'commander';
import { findCheckout } from '../kb/checkout.js';
import { analysisWorkflowId, parseRunId, runBranch } from '../analysis/run-id.js';
import { openCheckout } from './checkout.js';
import { IntegrateError, integrateRun } from '../activities/analysis/integrate.js';
import { locateRun, RunNotFoundError } from '../activities/analysis/runs.js';
import { beginReset, finishReset, readResetRecord, resetRecordFile, runFootprint } from '../activities/analysis/reset.js';
import { connectClient } from './connection.js';
import { describeEnded, endRun, graceMs, graceOption } from './end-run.js';
import { action, UserError } from './errors.js';

/** The workflow's status name, or undefined when the namespace has none of that ID. */
async function workflowStatus(workflowId: string): Promise<string | undefined> {
  const client = await connectClient();
  try {
    return (await client.workflow.getHandle(workflowId).describe()).status.name;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return undefined;
    throw error;
  }
}

/**
 * `analysis reset <run-id>`: says what it will discard, and with `--yes` ends the workflow (cancel,
 * then terminate after the grace period) and removes the run's worktree, branch and state; the next
 * `prepare` makes a new run.
 */
export function registerReset(analysis: Command): void {
  graceOption(
    analysis
      .command('reset')
      .description('discard a run: cancel its workflow (terminating it after the grace period), remove its worktree, branch and state, so the next prepare starts fresh (says what first; --yes to do it)')
      .argument('<run-id>', 'the run')
      .option('--yes', 'discard it (without it, reset only says what it would discard)')
      .option('--kb <dir>', 'KB checkout (default: the Git root above the current directory that holds kb/)'),
  ).action(
      action(async (runId: string, options: { yes?: boolean; kb?: string; grace?: string }) => {
        const grace = graceMs(options.grace);
        if (parseRunId(runId) === undefined) throw new UserError(`"${runId}" is not a run ID (AAS-<YYYY-MM-DD>-<system>-<nn>)`);
        const checkout = findCheckout(process.cwd(), options.kb).root;
        const earlier = await readResetRecord(checkout, runId);
        if (earlier?.state === 'reset') {
          process.stdout.write(`run ${runId} was already reset at ${earlier.finishedAt ?? earlier.startedAt}: nothing to discard\n`);
          return;
        }
        const footprint = await runFootprint(checkout, runId);
        const workflowId = analysisWorkflowId(await openCheckout(checkout), runId);
        const status = await workflowStatus(workflowId);
        if (earlier === undefined && footprint.worktree === undefined && !footprint.branch && status === undefined) {
          throw new UserError(`no run ${runId} in ${checkout}: no worktree, no branch ${runBranch(runId)}, no workflow ${workflowId}`);
        }
        const discards = [
          status === undefined ? `no workflow ${workflowId} on the server` : status === 'RUNNING' ? `workflow ${workflowId} (open: it will be cancelled, and terminated if it has not closed ${grace / 1000} s later; its history stays on the server)` : `workflow ${workflowId} (${status.toLowerCase()}; its history stays on the server)`,
          footprint.worktree === undefined ? 'no worktree' : `worktree ${footprint.worktree}, with the run's state (launches, checks, store, artifact)`,
          footprint.branch ? `branch ${runBranch(runId)}${footprint.unmerged > 0 ? ` (${footprint.unmerged} commit${footprint.unmerged === 1 ? '' : 's'} not on the checkout's HEAD — lost)` : ''}` : 'no branch',
        ];
        process.stdout.write(`${earlier ? `finishing the reset of ${runId} begun ${earlier.startedAt}` : `reset ${runId} discards`}:\n${discards.map((line) => `  - ${line}\n`).join('')}`);
        if (!options.yes) {
          process.stdout.write(`nothing was discarded; run again with --yes to discard it: commonplace analysis reset ${runId} --yes\n`);
          process.exitCode = 1;
          return;
        }
        if (earlier === undefined) await beginReset(checkout, { run: runId, discards, worktree: footprint.worktree ?? null, startedAt: new Date().toISOString() });
        if (status === 'RUNNING') {
          const client = await connectClient();
          const ended = await endRun(client.workflow.getHandle(workflowId), {
            graceMs: grace,
            reason: `reset by the operator (commonplace analysis reset ${runId}): it did not close within the grace period after the cancellation`,
            onWaiting: () => process.stderr.write(`cancelling ${workflowId}; waiting up to ${grace / 1000} s for it to close\n`),
          });
          process.stdout.write(`${describeEnded(workflowId, ended, grace)}\n`);
        }
        await finishReset(checkout, runId);
        process.stdout.write(`reset ${runId}: discarded (record: ${resetRecordFile(checkout, runId)}); the next prepare of this system makes a new run ID\n`);
      }),
    );
}

/** `analysis integrate <run-id>`: the guarded merge of a published run's branch into main; repeating it is a no-op. */
export function registerIntegrate(analysis: Command): void {
  analysis
    .command('integrate')
    .description('merge a published run\'s branch into the checkout\'s branch (main), refusing when main changed the same paths; a repeat is a no-op')
    .argument('<run-id>', 'the published run')
    .option('--kb <dir>', 'KB checkout (default: the Git root above the current directory that holds kb/)')
    .action(
      action(async (runId: string, options: { kb?: string }) => {
        const checkout = findCheckout(process.cwd(), options.kb).root;
        try {
          const result = await integrateRun(checkout, await locateRun(checkout, runId));
          process.stdout.write(
            result.outcome === 'already-integrated'
              ? `run ${runId} is already integrated into ${result.into}: nothing to do\n`
              : `integrated ${runId} into ${result.into} at ${result.commit.slice(0, 12)} (${result.paths.length} path${result.paths.length === 1 ? '' : 's'}):\n${result.paths.map((file) => `  ${file}\n`).join('')}`,
          );
        } catch (error) {
          if (error instanceof IntegrateError || error instanceof RunNotFoundError) throw new UserError(error.message);
          throw error;
        }
      }),
    );
}
