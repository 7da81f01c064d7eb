/**
 * A sweep's pace: its concurrency, lowered once — halved, at least 1 — when a launch reports that the
 * account's usage limit is near (a rate-limit warning), and kept low for the rest of the sweep.
 *
 * The state here is the batch's own: each workflow execution has its own module instance.
 */
import type { LaunchResult } from '../../harness/launch-contract.js';

/** What a batch hands its sweep (and the sweep its next batches) once a warning lowered the concurrency. */
export interface Pace {
  concurrency: number;
  /** The warning that lowered it: its type and the reset it named. */
  warning: string;
}

let current: { concurrency: number; pace?: Pace } = { concurrency: 1 };

/** Starts the batch at the sweep's concurrency, or at the pace an earlier batch lowered it to. */
export function startPace(concurrency: number, pace: Pace | undefined): void {
  current = { concurrency: pace?.concurrency ?? concurrency, ...(pace !== undefined && { pace }) };
}

/** Told of every launch that ran to an end: the first rate-limit warning halves the concurrency. */
export function paceLaunch(result: LaunchResult): void {
  const warning = result.rateLimitWarning;
  if (warning === undefined || current.pace !== undefined) return;
  const concurrency = Math.max(1, Math.floor(current.concurrency / 2));
  current = {
    concurrency,
    pace: { concurrency, warning: `${warning.type}${warning.resetsAt ? `, resets ${warning.resetsAt}` : ''} (seen by ${result.launchId})` },
  };
}

/** How many launches the batch runs at once now. */
export function paceLimit(): number {
  return current.concurrency;
}

/** The lowered pace, once a warning lowered it. */
export function lowered(): Pace | undefined {
  return current.pace;
}
