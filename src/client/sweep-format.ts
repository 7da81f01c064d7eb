/** How a gate sweep reads to the operator: the live line, a stop with its one next command, the end-of-sweep report. */
import type { Client } from '@temporalio/client';
import type { SweepProgress, SweepSummary } from '../review/sweep-types.js';
import { batchProgressQuery } from '../workflows/gate-batch.js';
import { progressQuery, type gateSweep } from '../workflows/gate-sweep.js';
import type { FollowFormat } from './follow.js';
import { nextLine, stopDetails, type NextCommands } from './stop-format.js';
import { liveLaunches, liveSuffix } from './live-launches.js';
import { spendLine, tokensLine, type SpendProgress } from '../runs/spend.js';

/** The commands a sweep's stops lead to. */
export function sweepNext(runId: string): NextCommands {
  return { resume: `commonplace review run gates --resume ${runId}`, acknowledge: `commonplace review acknowledge ${runId}`, ended: `commonplace review retry ${runId}` };
}

/** One progress line: pairs done of total, results by outcome, problems, stale on arrival, launches and spend (the running batch's included). */
export function progressLine(progress: SweepProgress, extraDone = 0, batchSpend?: SpendProgress): string {
  const { counts } = progress;
  const done = counts.pairsDone + extraDone;
  const written = Object.entries(counts.written).filter(([, n]) => n > 0).map(([outcome, n]) => `${n} ${outcome}`).join(', ') || 'none yet';
  // A batch's spend already holds what the sweep spent before it.
  const spend = batchSpend ?? progress.spend;
  const launches = spend?.launches ?? counts.launches;
  return `${progress.runId}: ${done}/${progress.pairs} pairs, batch ${Math.min(progress.batch + 1, progress.batches)}/${progress.batches}; results ${written}; ${counts.problems} problems, ${counts.staleOnArrival} stale on arrival, ${launches} launches${spend ? `, ${spendLine(spend)}` : ''}`;
}

/** The end-of-sweep report the operator reads: completed, or exhausted with the one next command. */
export function formatSummary(summary: SweepSummary): string {
  const { counts } = summary;
  const exhausted = summary.status === 'exhausted';
  const lines = [
    exhausted ? `sweep ${summary.runId} ended exhausted: ${counts.problems} pair${counts.problems === 1 ? '' : 's'} spent their attempt budgets` : `sweep ${summary.runId} completed`,
    `  pairs asked        ${summary.pairs} (${summary.units} launches planned)`,
    `  results written    pass ${counts.written.pass}, warn ${counts.written.warn}, fail ${counts.written.fail}, report ${counts.written.report}`,
    `  problems           ${counts.problems}${counts.problems > 0 && !exhausted ? `  (re-ask them: commonplace review retry ${summary.runId})` : ''}`,
    `  stale on arrival   ${counts.staleOnArrival}  (left for the next sweep)`,
    `  launches / tries   ${counts.launches} / ${counts.tries}`,
    `  cost               ${counts.launches > 0 ? spendLine({ ...counts, ...(summary.spend?.capUsd !== undefined && { capUsd: summary.spend.capUsd }) }) : 'nothing launched'}`,
    `  tokens             ${tokensLine(counts.tokens)}`,
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

/** A stop as the operator reads it, with the one command to type next. */
export function formatStop(progress: SweepProgress): string {
  const lines: string[] = [];
  for (const stop of progress.stops) lines.push(`sweep ${progress.runId} stopped: ${stop.kind} (${stop.disposition})`, `  ${stop.reason}`, ...stopDetails(stop, '  '));
  if (progress.resumesAt) lines.push(`  it goes on by itself at ${progress.resumesAt}`);
  lines.push('  results written so far are kept');
  lines.push(...nextLine(progress.stops, progress.status, sweepNext(progress.runId)));
  return lines.join('\n');
}

/** How the follow loop reads a sweep; the line adds the running batch's finer count. */
export function sweepFormat(client: Client, options: { quiet?: boolean } = {}): FollowFormat<SweepProgress, Awaited<ReturnType<typeof gateSweep>>> {
  return {
    query: progressQuery,
    quiet: options.quiet ?? false,
    line: async (progress) => {
      let inBatch = 0;
      let batchSpend: SpendProgress | undefined;
      let live: string[] = [];
      if (progress.currentBatch) {
        try {
          const batch = await client.workflow.getHandle(progress.currentBatch).query(batchProgressQuery);
          inBatch = batch.counts.pairsDone;
          batchSpend = batch.spend;
        } catch {
          // The batch has just ended or not yet started.
        }
        live = await liveLaunches(client, progress.currentBatch);
      }
      return `${progressLine(progress, inBatch, batchSpend)}${liveSuffix(live)}`;
    },
    stopped: formatStop,
    result: (summary) => ({ text: formatSummary(summary), status: summary.status === 'exhausted' ? 'exhausted' : summary.status === 'blocked' ? 'blocked' : 'completed' }),
  };
}
