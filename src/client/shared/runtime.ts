import { ApplicationFailure } from '@temporalio/common';
import { DefaultLogger, Runtime, type LogEntry } from '@temporalio/worker';
import { HISTOGRAM_BUCKETS } from '../../observability/metrics.js';
import { snakeCaseRuntimeMeter } from '../../observability/label-style.js';
import { debugEnabled, rootMessage, UserError } from './errors.js';
import { refusalIn } from '../../release.js';

/** What a worker holding a checkout says of its checkout queue's worker, which serves activities only by design. */
const expected = /^No workflows registered, not polling for workflow tasks/;

/** An activity's expected failure (an ApplicationFailure thrown on purpose) or a failed run, in one line; else undefined. */
export function operatorFailureLine(entry: Pick<LogEntry, 'message' | 'meta'>): string | undefined {
  const error = entry.meta?.error;
  // A run that fails on such an error: its history holds the whole failure; the log says which run and why.
  if (entry.message === 'Workflow failed' && error instanceof Error) {
    return `commonplace: workflow ${entry.meta?.workflowType} ${entry.meta?.workflowId} failed: ${rootMessage(error).split('\n')[0]}`;
  }
  if (entry.message !== 'Activity failed' || !(error instanceof ApplicationFailure) || !error.type) return undefined;
  const where = [entry.meta?.activityType, entry.meta?.workflowId].filter((part) => typeof part === 'string');
  return `commonplace: activity ${where.join(' of ')} failed (${error.type}): ${error.message.split('\n')[0]}`;
}

/** A run this release does not run, in its one line, from the workflow's log or the core's `Failing workflow task`; else undefined. */
export function refusalLine(entry: Pick<LogEntry, 'message' | 'meta'>): string | undefined {
  const error = entry.meta?.error;
  const failure = entry.meta?.failure;
  for (const text of [error instanceof Error ? error.message : undefined, typeof failure === 'string' ? failure : undefined, entry.message]) {
    const refusal = text === undefined ? undefined : refusalIn(text);
    if (refusal !== undefined) return `commonplace: ${refusal}`;
  }
  return undefined;
}

/** Worker logging at warnings (everything with --debug), metrics served at `metrics`; installed once, before any connection. */
export function installQuietRuntime(options: { metrics?: string } = {}): void {
  const debug = debugEnabled();
  const level = debug ? 'DEBUG' : 'WARN';
  const printer = new DefaultLogger(level);
  // A refused run's workflow task is retried until a worker of its release serves it: said once per worker process.
  const refused = new Set<string>();
  try {
    Runtime.install({
      logger: new DefaultLogger(level, (entry) => {
        if (expected.test(entry.message)) return;
        const refusal = debug ? undefined : refusalLine(entry);
        if (refusal !== undefined && refused.has(refusal)) return;
        if (refusal !== undefined) refused.add(refusal);
        const line = debug ? undefined : (refusal ?? operatorFailureLine(entry));
        if (line !== undefined) process.stderr.write(`${line}\n`);
        else printer.log(entry.level, entry.message, entry.meta);
      }),
      // The core's own warnings (a workflow task that failed) go through the logger above, not straight to the console.
      telemetryOptions: {
        logging: { filter: { core: level, other: debug ? 'DEBUG' : 'ERROR' }, forward: {} },
        // Counters end in `_total`, the SDK's and the project's alike (docs/observability.md).
        ...(options.metrics !== undefined && {
          metrics: { prometheus: { bindAddress: options.metrics, histogramBucketOverrides: HISTOGRAM_BUCKETS, countersTotalSuffix: true } },
        }),
      },
    });
    // Labels in one style: the SDK's TypeScript meters tag in camelCase, its core in snake_case.
    if (options.metrics !== undefined) snakeCaseRuntimeMeter(Runtime.instance());
  } catch (error) {
    if (options.metrics === undefined) throw error;
    throw new UserError(`--metrics ${options.metrics}: cannot serve metrics there (${rootMessage(error as Error).split('\n')[0]}); choose a free port`);
  }
}
