import { WorkflowFailedError, type Client, type WorkflowHandle } from '@temporalio/client';
import type { SweepProgress, SweepSummary } from '../review/sweep-types.js';
import { rootMessage, UserError } from './errors.js';

/** One progress line: pairs done of total, results by outcome, problems, stale on arrival, launches. */
export function progressLine(progress: SweepProgress, extraDone = 0): string {
  const { counts } = progress;
  const done = counts.pairsDone + extraDone;
  const written = Object.entries(counts.written).filter(([, n]) => n > 0).map(([outcome, n]) => `${n} ${outcome}`).join(', ') || 'none yet';
  return `${progress.runId}: ${done}/${progress.pairs} pairs, batch ${Math.min(progress.batch + 1, progress.batches)}/${progress.batches}; results ${written}; ${counts.problems} problems, ${counts.staleOnArrival} stale on arrival, ${counts.launches} launches`;
}

/** The end-of-sweep report the operator reads. */
export function formatSummary(summary: SweepSummary): string {
  const { counts } = summary;
  const lines = [
    `sweep ${summary.runId} completed`,
    `  pairs asked        ${summary.pairs} (${summary.units} launches planned)`,
    `  results written    pass ${counts.written.pass}, warn ${counts.written.warn}, fail ${counts.written.fail}, report ${counts.written.report}`,
    `  problems           ${counts.problems}${counts.problems > 0 ? `  (re-ask them: commonplace review retry ${summary.runId})` : ''}`,
    `  stale on arrival   ${counts.staleOnArrival}  (left for the next sweep)`,
    `  launches / tries   ${counts.launches} / ${counts.tries}`,
    `  cost               ${counts.costUsd > 0 ? `$${counts.costUsd.toFixed(4)}` : 'none reported'}`,
    `  run directory      ${summary.runDir}`,
  ];
  for (const problem of summary.problems.slice(0, 20)) lines.push(`  problem: ${problem.note} × ${problem.criterion}: ${problem.reason}`);
  if (summary.problems.length > 20) lines.push(`  … ${counts.problems - 20} more in ${summary.runDir}/problems.jsonl`);
  return lines.join('\n');
}

/** Prints how a stop reads to the operator, with the command to type next. */
export function formatStop(progress: SweepProgress): string {
  const stop = progress.stop!;
  const lines = [`sweep ${progress.runId} stopped: ${stop.kind} (${stop.disposition})`, `  ${stop.reason}`];
  if (stop.evidence) lines.push(`  evidence: ${stop.evidence}`);
  if (stop.resetAt) lines.push(`  the limit resets at ${stop.resetAt}`);
  if (progress.resumesAt) lines.push(`  it goes on by itself at ${progress.resumesAt}`);
  lines.push(`  results written so far are kept; continue with: commonplace review run gates --resume ${progress.runId}`);
  return lines.join('\n');
}

/**
 * Follows a sweep with live progress until it completes (exit 0) or stops (exit 2).
 * A failure of the workflow itself is exit 1.
 */
export async function followSweep(client: Client, handle: WorkflowHandle, options: { quiet?: boolean } = {}): Promise<void> {
  const tty = process.stderr.isTTY;
  let lastLine = '';
  let lastPrinted = 0;
  let finished = false;
  const result = handle.result().then(
    (summary) => ({ summary: summary as SweepSummary }),
    (error: unknown) => ({ error }),
  );
  void result.then(() => (finished = true));
  for (;;) {
    const race = await Promise.race([result, new Promise<undefined>((done) => setTimeout(() => done(undefined), 1000))]);
    if (race) {
      if (tty && lastLine) process.stderr.write('\n');
      if ('error' in race) {
        const error = race.error;
        throw new UserError(`sweep ${handle.workflowId} failed: ${error instanceof WorkflowFailedError ? rootMessage(error) : (error as Error).message}`);
      }
      process.stdout.write(`${formatSummary(race.summary)}\n`);
      return;
    }
    let progress: SweepProgress;
    try {
      progress = await handle.query<SweepProgress>('progress');
    } catch (error) {
      if (finished) continue;
      if (/not found|no worker|timed out/i.test((error as Error).message)) continue; // no worker yet; keep waiting
      throw error;
    }
    let inBatch = 0;
    if (progress.currentBatch) {
      try {
        const batch = await client.workflow.getHandle(progress.currentBatch).query<{ counts: { pairsDone: number } }>('batchProgress');
        inBatch = batch.counts.pairsDone;
      } catch {
        // The batch has just ended or not yet started.
      }
    }
    if (progress.status === 'stopped') {
      if (tty && lastLine) process.stderr.write('\n');
      process.stdout.write(`${formatStop(progress)}\n`);
      process.exitCode = 2;
      return;
    }
    const line = progressLine(progress, inBatch);
    if (options.quiet) continue;
    if (tty) {
      if (line !== lastLine) process.stderr.write(`\r\x1b[K${line}`);
    } else if (line !== lastLine && Date.now() - lastPrinted > 5000) {
      process.stderr.write(`${line}\n`);
      lastPrinted = Date.now();
    }
    lastLine = line;
  }
}
