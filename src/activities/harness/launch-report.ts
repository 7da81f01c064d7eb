import { Context, CancelledFailure } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { readFile } from 'node:fs/promises';
import type { CliExecutor } from '../../harness/executor.js';
import { findUsageLimitIn } from '../../harness/report.js';
import { parseResetTime } from '../../harness/reset-time.js';
import type { BilledTry, LaunchActivity, LaunchExitDetails, LaunchInput, LaunchResult, UsageLimitDetails } from '../../harness/launch-contract.js';
import { launchResult, setAside } from './launch-dir.js';
import { killGroup, readExitCode, tryFiles, writeTryLog, type TryRecord } from './tries.js';

/** How long a CLI may say it cannot reach its endpoint before the try is ended, when the profile sets no `unreachable-timeout`. */
export const defaultUnreachableTimeoutMs = 60_000;

export type TryEnd = 'timeout' | 'cancelled' | 'unreachable';

export const firstLine = (text: string): string => (text.split('\n')[0] ?? '').slice(0, 200);

export function usageLimitFailure(input: LaunchInput, notice: string, resetAt: string | null, more: Pick<UsageLimitDetails, 'rateLimitType' | 'billed'>) {
  const details: UsageLimitDetails = { harness: input.profile.harness, notice: notice.slice(0, 500), resetAt, ...more };
  return ApplicationFailure.create({
    type: 'usage-limit',
    nonRetryable: true,
    message: `${input.profile.harness} usage limit: ${firstLine(notice)}${resetAt ? ` (resets ${resetAt})` : ''}`,
    details: [details],
  });
}

/** Reads what an ended try left — its stdout, stderr, exit code and outputs — into a result or a launch failure. */
export async function report(
  executor: CliExecutor,
  input: LaunchInput,
  current: TryRecord,
  how: { adopted: boolean; ended: TryEnd | undefined; signal: string | null; unreachable?: string | undefined },
  clock: { now: () => Date; timeZone?: string | undefined },
): Promise<LaunchResult> {
  const { info } = Context.current();
  const { profile, dir } = input;
  const { logDir, try: tryNumber } = current;
  const { ended } = how;
  killGroup(current.pid, 'SIGKILL'); // children left behind by a finished harness
  const durationMs = Date.now() - current.startedAt;
  const files = tryFiles(dir, logDir);
  const stdout = await readFile(files.stdout, 'utf8').catch(() => '');
  const stderr = await readFile(files.stderr, 'utf8').catch(() => '');
  const exitCode = (await readExitCode(dir, current)) ?? null;
  await writeTryLog(dir, logDir, {
    launchId: input.launchId,
    try: tryNumber,
    ...(how.adopted && { adoptedBy: info.attempt }),
    scheduledAt: new Date(info.currentAttemptScheduledTimestampMs).toISOString(),
    firstScheduledAt: new Date(info.scheduledTimestampMs).toISOString(),
    command: current.command,
    exitCode,
    signal: how.signal,
    ended: ended ?? 'exited',
    durationMs,
  });
  if (ended === 'cancelled') {
    await setAside(input, logDir, 'aside');
    throw new CancelledFailure(`launch ${input.launchId} cancelled`);
  }

  const report = executor.report(stdout);
  // claude's stream says a window rejected the request, and when it resets, even when its result text is only "Request rejected (429)".
  const rejected = report.rateLimit?.status === 'rejected' && report.errorText !== undefined ? report.rateLimit : undefined;
  const notice = findUsageLimitIn(executor, stdout, stderr, report) ?? (rejected ? report.errorText : undefined);
  if (notice !== undefined && ended !== 'timeout' && ended !== 'unreachable') {
    await setAside(input, logDir, 'aside');
    const parsed = parseResetTime(notice, { now: clock.now(), ...(clock.timeZone && { timeZone: clock.timeZone }) });
    const resetAt = rejected?.resetsAt ? new Date(rejected.resetsAt) : parsed;
    throw usageLimitFailure(input, notice, resetAt?.toISOString() ?? null, { ...(rejected?.type && { rateLimitType: rejected.type }) });
  }

  // A CLI that reports an error in its own output failed, whatever its exit code (pi --mode json exits 0 after "Connection error.").
  const failedWithExit0 = ended === undefined && exitCode === 0 && report.errorText !== undefined;
  if (ended === 'unreachable' || failedWithExit0 || (ended !== 'timeout' && exitCode !== 0)) {
    const harnessError = ended === 'unreachable' ? how.unreachable : report.errorText;
    const details: LaunchExitDetails = {
      exitCode,
      stderrTail: stderr.slice(-2000),
      setAside: await setAside(input, logDir, 'aside'),
      logDir,
      ...(harnessError !== undefined && { harnessError: harnessError.slice(0, 2000) }),
      // What the CLI reported it cost before it failed was billed all the same.
      ...((report.usage !== undefined || report.costUsd !== undefined) && {
        billed: [{ model: report.model ?? profile.model ?? null, usage: report.usage ?? null, costUsd: report.costUsd ?? null }],
      }),
    };
    const why =
      ended === 'unreachable'
        ? `could not reach its endpoint for ${Math.round((profile.unreachableTimeoutMs ?? defaultUnreachableTimeoutMs) / 1000)} s (${how.unreachable ?? 'waiting for network'}); ended`
        : failedWithExit0
          ? `exited 0 but reported an error: ${firstLine(report.errorText ?? '')}`
          : `exited ${exitCode ?? `on ${how.signal ?? 'a signal'}`}`;
    throw ApplicationFailure.create({
      type: 'launch-exit',
      message: `launch ${input.launchId}: ${current.command[0]} ${why} (try ${tryNumber})`,
      details: [details],
    });
  }
  if (ended === 'timeout') await setAside(input, logDir, 'aside');
  return launchResult(input, report, { exitCode, timedOut: ended === 'timeout', durationMs, try: tryNumber, logDir });
}

/** The billed tries of this launch's earlier attempts, from the last heartbeat the attempt before sent. */
export function billedEarlier(context: Context): BilledTry[] {
  const details = context.info.heartbeatDetails as Partial<LaunchActivity> | undefined;
  return Array.isArray(details?.billed) ? details.billed : [];
}

/** Heartbeat details that carry the earlier billed tries on, so the attempt after this one still knows them. */
export const carrying = (details: LaunchActivity, billed: BilledTry[]): LaunchActivity => (billed.length === 0 ? details : { ...details, billed });

/** A result that names the tries of earlier attempts the provider billed. */
export const counted = (result: LaunchResult, earlier: BilledTry[]): LaunchResult => (earlier.length === 0 ? result : { ...result, billedBefore: earlier });

/**
 * A failed try's failure with every billed try of the launch so far in its details, its own after the
 * earlier attempts'. A retryable one beats them first: the next attempt reads them from its heartbeat
 * details (the worker flushes an activity's last heartbeat before reporting its failure).
 */
export function withBilled(error: unknown, earlier: BilledTry[], beat: (billed: BilledTry[]) => void): unknown {
  if (!(error instanceof ApplicationFailure) || (error.type !== 'launch-exit' && error.type !== 'usage-limit')) return error;
  const details = (error.details?.[0] ?? {}) as LaunchExitDetails | UsageLimitDetails;
  const billed = [...earlier, ...(details.billed ?? [])];
  if (billed.length === 0) return error;
  if (!error.nonRetryable) beat(billed);
  return ApplicationFailure.create({ type: error.type, message: error.message, nonRetryable: error.nonRetryable === true, details: [{ ...details, billed }] });
}
