import type { AskOutcome } from './ask.js';

export type StopKind =
  | 'usage-limit'
  | 'launch-failed'
  | 'budget-exhausted'
  | 'environment-changed'
  | 'awaiting-approval'
  | 'conflict'
  | 'checkout-changed'
  | 'publication-uncertain';

/** What the operator should do: run the same command again, read the evidence first, or decide. */
export type StopDisposition = 'retry' | 'inspect' | 'operator';

export interface Stop {
  kind: StopKind;
  disposition: StopDisposition;
  reason: string;
  /** What to read before anything is retried (a log directory, a journal). */
  evidence?: string;
  /** For a usage limit: when the harness said it resets. */
  resetAt?: string | null;
}

/** The stop an ask outcome calls for, if it is one: usage limits and exhausted relaunches stop the run. */
export function stopFor(outcome: AskOutcome): Stop | undefined {
  if (outcome.status === 'usage-limit') {
    return { kind: 'usage-limit', disposition: 'retry', reason: outcome.reason, resetAt: outcome.resetAt };
  }
  if (outcome.status === 'launch-failed') {
    return { kind: 'launch-failed', disposition: 'inspect', reason: outcome.reason, ...(outcome.logDir !== null && { evidence: outcome.logDir }) };
  }
  return undefined;
}
