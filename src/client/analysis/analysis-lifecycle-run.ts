import { WorkflowNotFoundError } from '@temporalio/client';
import { findCheckout, knownCheckoutId } from '../../checkout/index.js';
import { parseRunId, runBranch } from '../../analysis/run-id.js';
import { analysisWorkflowId } from '../../runs/workflow-ids.js';
import { IntegrateError, integrateRun } from '../../activities/analysis/integrate.js';
import { locateRun, RunNotFoundError } from '../../activities/analysis/runs.js';
import { beginReset, finishReset, readResetRecord, resetRecordFile, runFootprint } from '../../activities/analysis/reset.js';
import { connectClient } from '../shared/connection.js';
import { describeEnded, endRun, graceMs, type Ended } from '../shared/run-end.js';
import { UserError } from '../shared/errors.js';
import { printJson } from '../shared/json-output.js';
import { runnable, workingOn } from '../shared/command-line.js';
import { runCommand } from '../../runs/run-commands.js';

/** Undefined when the namespace has none of that ID. */
async function workflowStatus(workflowId: string): Promise<string | undefined> {
  const client = await connectClient();
  try {
    return (await client.workflow.getHandle(workflowId).describe()).status.name;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return undefined;
    throw error;
  }
}

export interface ResetOptions {
  yes?: boolean;
  kb?: string;
  grace?: string;
  json?: boolean;
}

/** `analysis reset <run-id>`: what it discards; with `--yes`, the workflow ended and the worktree, branch and state removed. */
export async function runReset(runId: string, options: ResetOptions): Promise<void> {
  const grace = graceMs(options.grace);
  if (parseRunId(runId) === undefined) throw new UserError(`"${runId}" is not a run ID (AAS-<YYYY-MM-DD>-<system>-<nn>)`);
  const checkout = workingOn(findCheckout(process.cwd(), options.kb).root);
  const earlier = await readResetRecord(checkout, runId);
  const record = resetRecordFile(checkout, runId);
  if (earlier?.state === 'reset') {
    const at = earlier.finishedAt ?? earlier.startedAt;
    if (options.json) printJson('analysis-reset', 1, { runId, outcome: 'already-reset', discards: [], record, resetAt: at });
    else process.stdout.write(`run ${runId} was already reset at ${at}: nothing to discard\n`);
    return;
  }
  const footprint = await runFootprint(checkout, runId);
  const workflowId = analysisWorkflowId(await knownCheckoutId(checkout), runId);
  const status = await workflowStatus(workflowId);
  if (earlier === undefined && footprint.worktree === undefined && !footprint.branch && status === undefined) {
    throw new UserError(`no run ${runId} in ${checkout}: no worktree, no branch ${runBranch(runId)}, no workflow ${workflowId}`);
  }
  const discards = [
    status === undefined
      ? `no workflow ${workflowId} on the server`
      : status === 'RUNNING'
        ? `workflow ${workflowId} (open: it will be cancelled, and terminated if it has not closed ${grace / 1000} s later; its history stays on the server)`
        : `workflow ${workflowId} (${status.toLowerCase()}; its history stays on the server)`,
    footprint.worktree === undefined ? 'no worktree' : `worktree ${footprint.worktree}, with the run's state (launches, checks, store, artifact)`,
    footprint.branch
      ? `branch ${runBranch(runId)}${footprint.unmerged > 0 ? ` (${footprint.unmerged} commit${footprint.unmerged === 1 ? '' : 's'} not on the checkout's HEAD — lost)` : ''}`
      : 'no branch',
  ];
  const what = { runId, workflowId, discards, ...(earlier !== undefined && { begunAt: earlier.startedAt }) };
  const told = `${earlier ? `finishing the reset of ${runId} begun ${earlier.startedAt}` : `reset ${runId} discards`}:\n${discards.map((line) => `  - ${line}\n`).join('')}`;
  if (!options.json) process.stdout.write(told);
  if (!options.yes) {
    const next = runCommand.analysisReset(runId, 'yes');
    if (options.json) printJson('analysis-reset', 1, { ...what, outcome: 'not-discarded', next });
    else process.stdout.write(`nothing was discarded; run again with --yes to discard it: ${runnable(next, checkout)}\n`);
    process.exitCode = 1;
    return;
  }
  if (earlier === undefined) await beginReset(checkout, { run: runId, discards, worktree: footprint.worktree ?? null, startedAt: new Date().toISOString() });
  let ended: Ended | undefined;
  if (status === 'RUNNING') {
    const client = await connectClient();
    ended = await endRun(client.workflow.getHandle(workflowId), {
      graceMs: grace,
      reason: `reset by the operator (${runCommand.analysisReset(runId)}): it did not close within the grace period after the cancellation`,
      onWaiting: () => process.stderr.write(`cancelling ${workflowId}; waiting up to ${grace / 1000} s for it to close\n`),
    });
    if (!options.json) process.stdout.write(`${describeEnded(workflowId, ended, grace)}\n`);
  }
  await finishReset(checkout, runId);
  if (options.json) {
    printJson('analysis-reset', 1, {
      ...what,
      outcome: 'discarded',
      record,
      ...(ended !== undefined && { ended: { how: ended.how, status: ended.status, message: describeEnded(workflowId, ended, grace) } }),
    });
    return;
  }
  process.stdout.write(`reset ${runId}: discarded (record: ${record}); the next prepare of this system makes a new run ID\n`);
}

/** `analysis integrate <run-id>`: the guarded merge of a published run's branch into main; repeating it is a no-op. */
export async function runIntegrate(runId: string, options: { kb?: string; json?: boolean }): Promise<void> {
  const checkout = workingOn(findCheckout(process.cwd(), options.kb).root);
  let result;
  try {
    result = await integrateRun(checkout, await locateRun(checkout, runId));
  } catch (error) {
    if (error instanceof IntegrateError || error instanceof RunNotFoundError) throw new UserError(error.message);
    throw error;
  }
  if (options.json) return printJson('analysis-integrate', 1, { runId, branch: runBranch(runId), ...result });
  process.stdout.write(
    result.outcome === 'already-integrated'
      ? `run ${runId} is already integrated into ${result.into}: nothing to do\n`
      : `integrated ${runId} into ${result.into} at ${result.commit.slice(0, 12)} (${result.paths.length} path${result.paths.length === 1 ? '' : 's'}):\n${result.paths.map((file) => `  ${file}\n`).join('')}`,
  );
}
