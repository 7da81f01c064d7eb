import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import type { AnalysisProgress, AnalysisResult } from '../analysis/progress.js';
import { formatResult, formatStop, progressLine } from './analysis-format.js';
import { rootMessage, UserError } from './errors.js';

/**
 * Follows an analysis with live progress until it completes (exit 0), stops (exit 2) or fails
 * (exit 1). Progress goes to stderr, the outcome to stdout.
 */
export async function followAnalysis(handle: WorkflowHandle): Promise<void> {
  const tty = process.stderr.isTTY;
  let lastLine = '';
  let lastPrinted = 0;
  const result = handle.result().then(
    (value) => ({ value: value as AnalysisResult }),
    (error: unknown) => ({ error }),
  );
  for (;;) {
    const race = await Promise.race([result, new Promise<undefined>((done) => setTimeout(() => done(undefined), 500))]);
    if (race) {
      if (tty && lastLine) process.stderr.write('\n');
      if ('error' in race) {
        const error = race.error;
        throw new UserError(`analysis ${handle.workflowId} failed: ${error instanceof WorkflowFailedError ? rootMessage(error) : (error as Error).message}`);
      }
      process.stdout.write(`${formatResult(race.value)}\n`);
      return;
    }
    let progress: AnalysisProgress;
    try {
      progress = await handle.query<AnalysisProgress>('progress');
    } catch (error) {
      if (/not found|no worker|timed out|deadline/i.test((error as Error).message)) continue; // no worker has picked it up yet
      throw error;
    }
    if (progress.status === 'stopped') {
      if (tty && lastLine) process.stderr.write('\n');
      process.stdout.write(`${formatStop(progress)}\n`);
      process.exitCode = 2;
      return;
    }
    const line = progressLine(progress);
    if (tty) {
      if (line !== lastLine) process.stderr.write(`\r\x1b[K${line}`);
    } else if (line !== lastLine && Date.now() - lastPrinted > 1000) {
      process.stderr.write(`${line}\n`);
      lastPrinted = Date.now();
    }
    lastLine = line;
  }
}
