/**
 * A sweep's concurrency, halved once (at least 1) on a rate-limit warning and kept low for the rest of the sweep.
 * The state here is the batch's own: each workflow execution has its own module instance.
 */
import type { LaunchResult } from '../../harness/launch-contract.js';

export interface Pace {
  concurrency: number;
  /** The warning that lowered it: its type and the reset it named. */
  warning: string;
}

let current: { concurrency: number; pace?: Pace } = { concurrency: 1 };

export function startPace(concurrency: number, pace: Pace | undefined): void {
  current = { concurrency: pace?.concurrency ?? concurrency, ...(pace !== undefined && { pace }) };
}

export function paceLaunch(result: LaunchResult): void {
  const warning = result.rateLimitWarning;
  if (warning === undefined || current.pace !== undefined) return;
  const concurrency = Math.max(1, Math.floor(current.concurrency / 2));
  current = {
    concurrency,
    pace: { concurrency, warning: `${warning.type}${warning.resetsAt ? `, resets ${warning.resetsAt}` : ''} (seen by ${result.launchId})` },
  };
}

export function paceLimit(): number {
  return current.concurrency;
}

export function lowered(): Pace | undefined {
  return current.pace;
}
