/** Ending a run honestly: cancel, wait for it to close up to a grace period, terminate only then, and say which happened. */
import type { WorkflowHandle } from '@temporalio/client';
import type { Command } from 'commander';
import { UserError } from './errors.js';

/** Whether an error says the workflow is not there (the SDK loads only when a run is ended, so `--help` stays light). */
async function isNotFound(error: unknown): Promise<boolean> {
  const { WorkflowNotFoundError } = await import('@temporalio/client');
  return error instanceof WorkflowNotFoundError;
}

/** How a run was ended: it closed on cancellation, was terminated after the grace period, or was closed already. */
export type EndedHow = 'cancelled' | 'terminated' | 'already-closed' | 'not-found';

export interface Ended {
  how: EndedHow;
  /** The execution's status name once it closed (`CANCELLED`, `TERMINATED`, `COMPLETED`, …). */
  status: string;
  /** The `CommonplaceStatus` search attribute the run recorded, read after it closed (absent when it recorded none). */
  recorded?: string;
}

export const DEFAULT_GRACE_SECONDS = 30;

/** Adds `--grace <seconds>` to a command that ends runs. */
export function graceOption(command: Command): Command {
  return command.option('--grace <seconds>', `how long to wait for the cancelled run to close before terminating it (default: ${DEFAULT_GRACE_SECONDS})`);
}

/** The grace period in milliseconds; a bad value is a usage error (exit 1). */
export function graceMs(text: string | undefined): number {
  if (text === undefined) return DEFAULT_GRACE_SECONDS * 1000;
  const seconds = Number(text);
  if (text.trim() === '' || !Number.isFinite(seconds) || seconds < 0) throw new UserError(`--grace must be a number of seconds (0 or more), got "${text}"`);
  return seconds * 1000;
}

const sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));

/** A workflow's execution status and the `CommonplaceStatus` it recorded, or undefined when the server has no such workflow. */
export async function describeExecution(handle: WorkflowHandle): Promise<{ status: string; recorded?: string } | undefined> {
  try {
    const described = await handle.describe();
    const recorded = described.typedSearchAttributes.getAll().find((pair) => pair.key.name === 'CommonplaceStatus')?.value;
    return { status: described.status.name, ...(typeof recorded === 'string' && { recorded }) };
  } catch (error) {
    if (await isNotFound(error)) return undefined;
    throw error;
  }
}

/** The ending as it reads once the run is closed: its execution status and what it recorded. */
async function closedAs(handle: WorkflowHandle, how: EndedHow): Promise<Ended> {
  return { how, ...((await describeExecution(handle)) ?? { status: 'NOT_FOUND' }) };
}

/** Cancels the open execution, polls until it closes up to `graceMs`, then terminates it with `reason` if still open. */
export async function endRun(handle: WorkflowHandle, options: { graceMs: number; reason: string; onWaiting?: () => void }): Promise<Ended> {
  const before = await describeExecution(handle);
  if (before === undefined) return { how: 'not-found', status: 'NOT_FOUND' };
  if (before.status !== 'RUNNING') return { how: 'already-closed', ...before };
  await handle.cancel().catch(async (error: unknown) => {
    if (!(await isNotFound(error))) throw error;
  });
  options.onWaiting?.();
  const deadline = Date.now() + options.graceMs;
  for (let wait = 100; ; wait = Math.min(wait * 2, 1000)) {
    if ((await describeExecution(handle))?.status !== 'RUNNING') return closedAs(handle, 'cancelled');
    if (Date.now() >= deadline) break;
    await sleep(Math.min(wait, Math.max(0, deadline - Date.now())));
  }
  try {
    await handle.terminate(options.reason);
  } catch (error) {
    // It closed between the last look and the terminate: it ended on the cancellation after all.
    if (await isNotFound(error)) return closedAs(handle, 'cancelled');
    throw error;
  }
  return closedAs(handle, 'terminated');
}

/** One line saying what was ended and how. */
export function describeEnded(workflowId: string, ended: Ended, graceMs: number): string {
  switch (ended.how) {
    case 'cancelled':
      return ended.status === 'CANCELLED'
        ? `cancelled ${workflowId}: it closed on the cancellation`
        : `cancelled ${workflowId}: it closed ${ended.status.toLowerCase()} while the cancellation was delivered`;
    case 'terminated':
      return `terminated ${workflowId}: it did not close within the ${graceMs / 1000} s grace period after the cancellation`;
    case 'already-closed':
      return `${workflowId} was already closed (${ended.status.toLowerCase()}): nothing to end`;
    case 'not-found':
      return `no workflow ${workflowId} on the server: nothing to end`;
  }
}
