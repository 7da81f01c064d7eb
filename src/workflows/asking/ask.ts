import { ActivityFailure, ApplicationFailure, TimeoutFailure, metricMeter, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../../activities/index.js';
import type { AskOutcome, LaunchExitDetails, LaunchInput, LaunchResult, UsageLimitDetails } from '../../harness/launch-contract.js';
import { launchHeartbeatTimeout, launchStartToCloseMs, relaunchRule } from '../../harness/executor.js';
import type { Finding } from '../../kb/findings.js';
import { billedTries } from '../../runs/spend.js';
import { stopFor, type Stop, type StopOf } from '../../runs/stop.js';
import type { Spend } from '../spend-cap.js';
import { consultQuotaGate, reportUsageLimit } from '../quota-gate-client.js';
import { recordBilled, recordLaunch } from '../../observability/metrics.js';

export type { AskOutcome } from '../../harness/launch-contract.js';
export { launchHeartbeatTimeout, relaunchRule } from '../../harness/executor.js';

export function spentReason(outcome: AskOutcome): string {
  if (outcome.status === 'timed-out') return 'the last launch timed out';
  if (outcome.status === 'incomplete') return `the last launch did not write ${outcome.result.missing.join(', ')}`;
  return outcome.status;
}

export function spentFinding(outcome: AskOutcome, outputs: readonly string[]): Finding {
  const missing = outcome.status === 'incomplete' ? outcome.result.missing : outputs;
  return {
    file: missing.join(', '),
    rule: outcome.status === 'timed-out' ? 'launch-timed-out' : 'launch-incomplete',
    severity: 'fail',
    message: spentReason(outcome),
  };
}

/** One launch under the relaunch rule, its failures turned into outcomes to stop on; a closed quota gate launches nothing. */
export async function ask(input: LaunchInput, summary?: string, via?: LaunchVia): Promise<AskOutcome> {
  const closed = await consultQuotaGate(input);
  if (closed) return closed;
  const outcome = await launched(via ?? (() => launchActivity(input.profile, summary)(input)), input);
  if ('result' in outcome && outcome.result.adopted) return outcome;
  // Counted once: the SDK drops a workflow's metric records while it replays.
  recordLaunch(metricMeter, input.profile, outcome);
  // The tries the provider billed besides the launch recordLaunch counted: relaunched ones, or all of a failed launch's.
  recordBilled(metricMeter, input.profile, 'result' in outcome ? (outcome.result.billedBefore ?? []) : billedTries(outcome));
  return outcome;
}

/** Another activity that makes the launch under its timeouts and relaunch rule: a model-API unit's capture, request and accept in one (sweep-unit.ts). */
export type LaunchVia = () => Promise<LaunchResult>;

function launchActivity(profile: LaunchInput['profile'], summary: string | undefined) {
  return proxyActivities<Activities>(launchOptions(profile, summary)).launch;
}

export function launchOptions(profile: LaunchInput['profile'], summary: string | undefined) {
  return {
    startToCloseTimeout: launchStartToCloseMs(profile),
    heartbeatTimeout: launchHeartbeatTimeout,
    retry: relaunchRule,
    ...(summary !== undefined && { summary }),
  };
}

async function launched(launch: () => Promise<LaunchResult>, input: LaunchInput): Promise<AskOutcome> {
  try {
    const result = await launch();
    if (result.timedOut) return { status: 'timed-out', result };
    if (result.missing.length > 0) return { status: 'incomplete', result };
    return { status: 'completed', result };
  } catch (error) {
    if (!(error instanceof ActivityFailure)) throw error;
    const cause = error.cause;
    if (cause instanceof ApplicationFailure && cause.type === 'usage-limit') {
      const details = cause.details?.[0] as UsageLimitDetails | undefined;
      return reportUsageLimit(input, {
        status: 'usage-limit',
        reason: cause.message,
        harness: details?.harness ?? input.profile.harness,
        resetAt: details?.resetAt ?? null,
        ...(details?.billed !== undefined && { billed: details.billed }),
      });
    }
    if (cause instanceof ApplicationFailure && (cause.type === 'launch-exit' || cause.type === 'harness-missing')) {
      const details = cause.details?.[0] as LaunchExitDetails | undefined;
      return {
        status: 'launch-failed',
        reason: cause.message,
        exitCode: details?.exitCode ?? null,
        logDir: details?.logDir ?? null,
        ...(details?.billed !== undefined && { billed: details.billed }),
      };
    }
    if (cause instanceof TimeoutFailure) {
      return { status: 'launch-failed', reason: `launch ${input.launchId}: ${cause.message} (the worker stopped answering)`, exitCode: null, logDir: null };
    }
    throw error;
  }
}

/** What one launch of a checked job came to: a stop, a spent attempt with why, or the caller's check of the outputs. */
export type LaunchOnce<A> = { kind: 'stop'; stop: Stop } | { kind: 'spent'; findings: Finding[] } | A;

/** One launch of a job whose outputs code checks; a stop or a spent attempt (timed out, outputs missing) is returned as such. */
export async function launchOnce<A>(
  input: LaunchInput,
  summary: string,
  check: (result: LaunchResult) => Promise<A>,
  /** Told of every launch that ran to an end, checked or spent (a sweep counts its launches and cost). */
  ran?: (result: LaunchResult) => void,
  /** The run's spend: a launch that would pass its cap is not started (a `spend-limit` stop). */
  spend?: Spend,
  /** Another activity that makes the launch (absent: the launch activity). */
  via?: LaunchVia,
): Promise<LaunchOnce<A>> {
  const outcome = await askWithin(spend, input, summary, via);
  if (outcome.status === 'spend-limit') return { kind: 'stop', stop: outcome.stop };
  if (outcome.status === 'usage-limit' || outcome.status === 'launch-failed') return { kind: 'stop', stop: stopFor(outcome) as Stop };
  if (!outcome.result.adopted) ran?.(outcome.result);
  if (outcome.status !== 'completed') return { kind: 'spent', findings: [spentFinding(outcome, input.outputs)] };
  return check(outcome.result);
}

/** A launch that would take the run past its spend cap is not started: the `spend-limit` stop comes back instead. */
export async function askWithin(
  spend: Spend | undefined,
  input: LaunchInput,
  summary?: string,
  via?: LaunchVia,
): Promise<AskOutcome | { status: 'spend-limit'; stop: StopOf<'spend-limit'> }> {
  if (spend === undefined) return ask(input, summary, via);
  const stop = spend.over();
  if (stop !== undefined) return { status: 'spend-limit', stop };
  return spend.track(() => ask(input, summary, via));
}
