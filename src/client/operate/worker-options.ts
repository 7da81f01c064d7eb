/** Options `commonplace worker` and `commonplace dev` share, read at the boundary (light: no SDK). */
import { delimiter } from 'node:path';
import { UserError } from '../shared/errors.js';

/** `--max-launches` as a number, or the one-line error naming it. */
export function maxLaunchesOption(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new UserError(`--max-launches must be a positive whole number, got "${value}"`);
  return Number(value);
}

/** The checkouts `--kb` names (repeatable), after those of COMMONPLACE_KB (directories separated like PATH). */
export function kbDirectories(named: string[]): string[] {
  const fromEnv = (process.env.COMMONPLACE_KB ?? '').split(delimiter).filter((dir) => dir !== '');
  return [...new Set([...fromEnv, ...named])];
}

/** `--heartbeat-throttle` in seconds, as the SDK's duration (milliseconds), or the one-line error naming it; unset is the SDK's throttle. */
export function heartbeatThrottleOption(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value.trim()) || !(seconds > 0) || seconds > 60) {
    throw new UserError(`--heartbeat-throttle (or COMMONPLACE_HEARTBEAT_THROTTLE) must be seconds above 0 and at most 60, such as 2 or 0.5, got "${value}"`);
  }
  return Math.round(seconds * 1000);
}

/** Unset is the SDK's one thread; 0 runs workflow code on the main thread, saving the thread's start (about half a CPU second). */
export function workflowThreadsOption(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  if (!/^\d+$/.test(value.trim()) || Number(value) > 16) {
    throw new UserError(`--workflow-threads (or COMMONPLACE_WORKFLOW_THREADS) must be a whole number from 0 to 16, got "${value}"`);
  }
  return Number(value);
}
