/** How a gate sweep reads to the operator: the live line, a stop with its one next command, the end-of-sweep report. */
import type { ProviderBatchProgress } from '../../../harness/batches/batch-contract.js';
import type { Client } from '@temporalio/client';
import type { CompareProgress } from '../../../review/compare/run-types.js';
import type { SweepCounts, SweepProgress, SweepSummary } from '../../../review/sweep-types.js';
import { batchProgressQuery } from '../../../workflows/gate-batch.js';
import { progressQuery, type gateSweep } from '../../../workflows/gate-sweep.js';
import type { FollowFormat } from '../../shared/follow.js';
import { nextLine, nextStep, stopDetails } from '../../shared/stop-format.js';
import { runCommand, sweepNext, type NextCommands } from '../../../runs/run-commands.js';
import { liveLaunches, liveSuffix } from '../../shared/live-launches.js';
import { describeCachePrefixes } from '../../../harness/prompt-cache.js';
import { spendLine, tokensLine, type SpendProgress } from '../../../runs/spend.js';
import { runnable } from '../../shared/command-line.js';

/** What the running batch has done that the sweep's counts do not hold yet (its spend already holds the sweep's before it). */
export interface RunningBatch {
  counts: SweepCounts;
  spend?: SpendProgress;
  /** Where the batch's provider batch stands (a `--batch` sweep). */
  provider?: ProviderBatchProgress;
}

/** The clock a progress line reads: now, when the sweep started, and the first look the rate is measured from. */
export interface LineClock {
  now: number;
  startedAt?: number;
  since?: { at: number; done: number };
}

/** A duration as the operator reads it: 45s, 13m40s, 2h05m. */
export function duration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, '0')}m`;
}

/** The sweep's counts with the running batch's added: what is done so far, not only what finished batches recorded. */
export function currentCounts(counts: SweepCounts, batch?: RunningBatch): SweepCounts {
  if (!batch) return counts;
  const written = { ...counts.written };
  for (const [outcome, n] of Object.entries(batch.counts.written) as [keyof typeof written, number][]) written[outcome] = (written[outcome] ?? 0) + n;
  return {
    ...counts,
    pairsDone: counts.pairsDone + batch.counts.pairsDone,
    written,
    problems: counts.problems + batch.counts.problems,
    staleOnArrival: counts.staleOnArrival + batch.counts.staleOnArrival,
    launches: counts.launches + batch.counts.launches,
    tries: counts.tries + batch.counts.tries,
  };
}

/**
 * One progress line: pairs done of total (the running batch's included), results by outcome,
 * problems, launches and spend, then the rate in pairs a minute, the elapsed time and the ETA.
 */
export function progressLine(progress: SweepProgress, batch: RunningBatch | undefined, clock: LineClock): string {
  const counts = currentCounts(progress.counts, batch);
  const done = counts.pairsDone;
  const written =
    Object.entries(counts.written)
      .filter(([, n]) => n > 0)
      .map(([outcome, n]) => `${n} ${outcome}`)
      .join(', ') || (done === 0 ? 'none yet' : 'none written');
  // A batch's spend already holds what the sweep spent before it.
  const spend = batch?.spend ?? progress.spend;
  const launches = Math.max(spend?.launches ?? 0, counts.launches);
  const parts = [
    `${progress.runId}: ${done}/${progress.pairs} pairs`,
    `batch ${Math.min(progress.batch + 1, progress.batches)}/${progress.batches}`,
    `results ${written}`,
    `${counts.problems} problems, ${counts.staleOnArrival} stale on arrival`,
    `${launches} launch${launches === 1 ? '' : 'es'}${spend ? `, ${spendLine(spend)}` : ''}`,
  ];
  // Caching silently does nothing below a model's minimum: say so while the sweep runs.
  if (progress.cachePrefixes && progress.cachePrefixes.unitsBelow > 0)
    parts.push(`${progress.cachePrefixes.unitsBelow}/${progress.units} units below the cache minimum`);
  const provider = batch?.provider?.counts;
  if (provider)
    parts.push(
      `provider batch: ${provider.processing} processing, ${provider.succeeded} succeeded, ${provider.errored} errored, ${provider.expired + provider.canceled} expired`,
    );
  const from = clock.since ?? (clock.startedAt !== undefined ? { at: clock.startedAt, done: 0 } : undefined);
  const minutes = from ? (clock.now - from.at) / 60_000 : 0;
  const rate = from && minutes > 0 && done > from.done ? (done - from.done) / minutes : undefined;
  if (rate !== undefined) parts.push(`${rate >= 10 ? Math.round(rate) : rate.toFixed(1)} pairs/min`);
  if (clock.startedAt !== undefined) parts.push(`elapsed ${duration(clock.now - clock.startedAt)}`);
  if (rate !== undefined && done < progress.pairs) parts.push(`ETA ${duration(((progress.pairs - done) / rate) * 60_000)}`);
  return parts.join(' · ');
}

/** The end-of-sweep report the operator reads: completed, or exhausted with the one next command. */
export function formatSummary(summary: SweepSummary): string {
  const { counts } = summary;
  const exhausted = summary.status === 'exhausted';
  const lines = [
    exhausted
      ? `sweep ${summary.runId} ended exhausted: ${counts.problems} pair${counts.problems === 1 ? '' : 's'} spent their attempt budgets`
      : `sweep ${summary.runId} completed`,
    `  pairs asked        ${summary.pairs} (${summary.units} launches planned)`,
    `  results written    pass ${counts.written.pass}, warn ${counts.written.warn}, fail ${counts.written.fail}, report ${counts.written.report}`,
    `  problems           ${counts.problems}${counts.problems > 0 && !exhausted ? `  (re-ask them: ${runnable(runCommand.sweepRetry(summary.runId))})` : ''}`,
    `  stale on arrival   ${counts.staleOnArrival}  (left for the next sweep)`,
    `  launches / tries   ${counts.launches} / ${counts.tries}`,
    `  cost               ${counts.launches > 0 ? spendLine({ ...counts, ...(summary.spend?.capUsd !== undefined && { capUsd: summary.spend.capUsd }) }) : 'nothing launched'}`,
    `  tokens             ${tokensLine(counts.tokens)}`,
    ...(summary.cachePrefixes ? [`  prompt cache       ${describeCachePrefixes(summary.cachePrefixes)}`] : []),
    `  run directory      ${summary.runDir}`,
  ];
  for (const problem of summary.problems.slice(0, 20)) lines.push(`  problem: ${problem.note} × ${problem.criterion}: ${problem.reason}`);
  if (summary.problems.length > 20) lines.push(`  … ${counts.problems - 20} more in ${summary.runDir}/problems.jsonl`);
  if (exhausted) {
    for (const stop of summary.stops) lines.push(`  ended by: ${stop.kind} (${stop.disposition}): ${stop.reason}`, ...stopDetails(stop, '    '));
    lines.push(...nextLine(summary.stops, 'exhausted', sweepNext(summary.runId)));
  }
  return lines.join('\n');
}

/** A run's stop as the operator reads it (a sweep's, a compare run's): each stop, what is kept, and the one command to type next. */
export function runStop(what: string, progress: SweepProgress | CompareProgress, kept: string, next: NextCommands): string {
  const lines = progress.stops.flatMap((stop) => [
    `${what} ${progress.runId} stopped: ${stop.kind} (${stop.disposition})`,
    `  ${stop.reason}`,
    ...stopDetails(stop, '  '),
  ]);
  return [...lines, `  ${kept}`, ...nextLine(progress.stops, progress.status, next, '  ', progress.spend, progress.resumesAt)].join('\n');
}

/** A sweep's stop as the operator reads it. */
export const formatStop = (progress: SweepProgress) => runStop('sweep', progress, 'results written so far are kept', sweepNext(progress.runId));

/** The running batch's counts and its launches in flight, while a batch of the run (a sweep's, a compare route's) is open. */
export async function runningBatch(client: Client, workflowId: string | undefined): Promise<{ batch?: RunningBatch; live: string[] }> {
  if (!workflowId) return { live: [] };
  // The batch may have just ended or not yet started: then it has no counts to add.
  const batch = await client.workflow
    .getHandle(workflowId)
    .query(batchProgressQuery)
    .catch(() => undefined);
  return { ...(batch && { batch }), live: await liveLaunches(client, workflowId) };
}

/** The one next command of a sweep in this progress (for `--json`). */
export function sweepNextCommand(progress: SweepProgress): string | undefined {
  return nextStep(progress.stops, progress.status, sweepNext(progress.runId), progress.spend)?.command;
}

/** How the follow loop reads a sweep; the line adds the running batch's counts, the rate, the elapsed time and the ETA. */
export function sweepFormat(
  client: Client,
  options: { quiet?: boolean; json?: boolean; clock?: () => number } = {},
): FollowFormat<SweepProgress, Awaited<ReturnType<typeof gateSweep>>> {
  const clock = options.clock ?? Date.now;
  let startedAt: number | undefined;
  let since: { at: number; done: number } | undefined;
  let described = false;
  return {
    query: progressQuery,
    quiet: options.quiet ?? false,
    json: options.json ?? false,
    line: async (progress) => {
      if (!described) {
        described = true;
        startedAt = await client.workflow
          .getHandle(progress.workflowId)
          .describe()
          .then(
            (execution) => execution.startTime.getTime(),
            () => undefined,
          );
      }
      const { batch, live } = await runningBatch(client, progress.currentBatch);
      const now = clock();
      since ??= { at: now, done: currentCounts(progress.counts, batch).pairsDone };
      // Measured from the first look when it came after the start (an attach); from the start otherwise.
      const rateFrom = startedAt !== undefined && since.done === 0 ? undefined : since;
      return `${progressLine(progress, batch, { now, ...(startedAt !== undefined && { startedAt }), ...(rateFrom !== undefined && { since: rateFrom }) })}${liveSuffix(live)}`;
    },
    stopped: formatStop,
    next: sweepNextCommand,
    result: (summary) => ({
      text: formatSummary(summary),
      status: summary.status === 'exhausted' ? 'exhausted' : summary.status === 'blocked' ? 'blocked' : 'completed',
      ...(summary.status === 'exhausted' && { next: sweepNext(summary.runId).ended }),
    }),
  };
}
