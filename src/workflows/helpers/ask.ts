import { ActivityFailure, ApplicationFailure, TimeoutFailure, proxyActivities, type ActivityOptions } from '@temporalio/workflow';
import type { Activities, LaunchExitDetails, LaunchInput, LaunchResult, UsageLimitDetails } from '../../activities/index.js';

/** The relaunch rule: a nonzero exit is relaunched after 30 s, then 120 s; a third failure is final. */
export const relaunchRule = {
  initialInterval: '30s',
  backoffCoefficient: 4,
  maximumInterval: '120s',
  maximumAttempts: 3,
  nonRetryableErrorTypes: ['usage-limit', 'harness-missing', 'bad-launch-input'],
} satisfies ActivityOptions['retry'];

export const launchHeartbeatTimeout = '15s';

/** What one ask came to; only `completed` can be checked, the rest are stops or spent attempts. */
export type AskOutcome =
  | { status: 'completed'; result: LaunchResult }
  | { status: 'incomplete'; result: LaunchResult }
  | { status: 'timed-out'; result: LaunchResult }
  | { status: 'usage-limit'; reason: string; harness: string; resetAt: string | null }
  | { status: 'launch-failed'; reason: string; exitCode: number | null; logDir: string | null };

/** Whether the outcome spends one attempt of the role's budget (relaunches and usage limits spend none). */
export function spendsAttempt(outcome: AskOutcome): boolean {
  return outcome.status === 'incomplete' || outcome.status === 'timed-out';
}

/** Asks a worker once: one launch under the relaunch rule, its failures turned into outcomes the caller can stop on. */
export async function ask(input: LaunchInput, summary?: string): Promise<AskOutcome> {
  const { launch } = proxyActivities<Activities>({
    startToCloseTimeout: input.profile.timeoutMs + 5 * 60_000,
    heartbeatTimeout: launchHeartbeatTimeout,
    retry: relaunchRule,
    ...(summary !== undefined && { summary }),
  });
  try {
    const result = await launch(input);
    if (result.timedOut) return { status: 'timed-out', result };
    if (result.missing.length > 0) return { status: 'incomplete', result };
    return { status: 'completed', result };
  } catch (error) {
    if (!(error instanceof ActivityFailure)) throw error;
    const cause = error.cause;
    if (cause instanceof ApplicationFailure && cause.type === 'usage-limit') {
      const details = cause.details?.[0] as UsageLimitDetails | undefined;
      return { status: 'usage-limit', reason: cause.message, harness: details?.harness ?? input.profile.harness, resetAt: details?.resetAt ?? null };
    }
    if (cause instanceof ApplicationFailure && (cause.type === 'launch-exit' || cause.type === 'harness-missing')) {
      const details = cause.details?.[0] as LaunchExitDetails | undefined;
      return { status: 'launch-failed', reason: cause.message, exitCode: details?.exitCode ?? null, logDir: details?.logDir ?? null };
    }
    if (cause instanceof TimeoutFailure) {
      return { status: 'launch-failed', reason: `launch ${input.launchId}: ${cause.message} (the worker stopped answering)`, exitCode: null, logDir: null };
    }
    throw error;
  }
}
