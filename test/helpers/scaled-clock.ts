/**
 * A quicker clock for the runs of a test that ask for one: a workflow interceptor only the test run's
 * workflow bundle carries (test/helpers/global-setup.js), never a production worker's. A run started with
 * `scaledClockMemo(scale)` in its memo has its durable timers, its activities' retry intervals and their
 * heartbeat timeouts multiplied by `scale` (a heartbeat timeout never below `heartbeatFloorMs`, so a live
 * launch's 2 s heartbeats still hold on a busy machine); its children and continued runs carry the memo
 * on. A run the test cannot give a memo (the operator CLI starts it) asks through its namespace: every
 * run in a namespace whose name carries `scaledClockNamespaceMark(n)` (a file's `useDevServer({ quickerClock:
 * n })`) runs on 1/n of the clock. Every other run on the same bundle keeps the shipped numbers, which stay
 * the contract: the tests that prove them are named in each scaled test's comment.
 *
 * Deterministic: the scale is read from the run's own memo and namespace, which replay sees unchanged.
 */
import { workflowInfo } from '@temporalio/workflow';
import type {
  ActivityInput,
  ContinueAsNewInput,
  LocalActivityInput,
  Next,
  StartChildWorkflowExecutionInput,
  TimerInput,
  WorkflowInterceptorsFactory,
  WorkflowOutboundCallsInterceptor,
} from '@temporalio/workflow';
import type { Duration, RetryPolicy } from '@temporalio/common';

/** The memo field a test sets on the runs it starts. */
export const scaledClockField = 'commonplaceTestScaledClock';

/** The shortest heartbeat timeout a scaled run gets: over twice a launch's heartbeat interval (2 s). */
export const heartbeatFloorMs = 5000;

/** The memo that asks for a clock `scale` times the shipped one (0.1: a 30 s wait takes 3 s). */
export function scaledClockMemo(scale: number): Record<string, unknown> {
  return { [scaledClockField]: { scale } };
}

/** What a namespace's name carries when every run in it asks for a clock `times` quicker than the shipped one. */
export const scaledClockNamespaceMark = (times: number): string => `clock-x${Math.round(times)}`;

function scaleOfRun(): number | undefined {
  const { memo, namespace } = workflowInfo();
  const asked = memo?.[scaledClockField] as { scale?: unknown } | undefined;
  if (typeof asked?.scale === 'number' && asked.scale > 0) return asked.scale;
  const times = Number(/(?:^|-)clock-x(\d+)(?:-|$)/.exec(namespace)?.[1]);
  return times > 0 ? 1 / times : undefined;
}

const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A duration as the project writes them (`'30s'`, `'5m'`, or milliseconds) in milliseconds. */
function msToNumber(duration: Duration): number {
  if (typeof duration === 'number') return duration;
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/.exec(duration);
  if (!match) throw new Error(`scaled clock: cannot read the duration ${String(duration)}`);
  return Number(match[1]) * units[match[2] ?? 'ms']!;
}

const times = (ms: number, scale: number, floorMs: number) => Math.max(floorMs, Math.round(ms * scale));

function scaledRetry(retry: RetryPolicy | undefined, scale: number): RetryPolicy | undefined {
  if (retry === undefined) return undefined;
  return {
    ...retry,
    ...(retry.initialInterval !== undefined && { initialInterval: times(msToNumber(retry.initialInterval), scale, 100) }),
    ...(retry.maximumInterval !== undefined && { maximumInterval: times(msToNumber(retry.maximumInterval), scale, 100) }),
  };
}

class ScaledClock implements WorkflowOutboundCallsInterceptor {
  async startTimer(input: TimerInput, next: Next<WorkflowOutboundCallsInterceptor, 'startTimer'>): Promise<void> {
    const scale = scaleOfRun();
    return next(scale === undefined ? input : { ...input, durationMs: times(input.durationMs, scale, 1) });
  }

  async scheduleActivity(input: ActivityInput, next: Next<WorkflowOutboundCallsInterceptor, 'scheduleActivity'>): Promise<unknown> {
    const scale = scaleOfRun();
    if (scale === undefined) return next(input);
    const { heartbeatTimeout, retry } = input.options;
    return next({
      ...input,
      options: {
        ...input.options,
        ...(heartbeatTimeout !== undefined && { heartbeatTimeout: times(msToNumber(heartbeatTimeout), scale, heartbeatFloorMs) }),
        ...(retry !== undefined && { retry: scaledRetry(retry, scale) }),
      },
    });
  }

  async scheduleLocalActivity(input: LocalActivityInput, next: Next<WorkflowOutboundCallsInterceptor, 'scheduleLocalActivity'>): Promise<unknown> {
    const scale = scaleOfRun();
    if (scale === undefined || input.options.retry === undefined) return next(input);
    return next({ ...input, options: { ...input.options, retry: scaledRetry(input.options.retry, scale) } });
  }

  async startChildWorkflowExecution(
    input: StartChildWorkflowExecutionInput,
    next: Next<WorkflowOutboundCallsInterceptor, 'startChildWorkflowExecution'>,
  ): Promise<[Promise<string>, Promise<unknown>]> {
    const scale = scaleOfRun();
    return next(scale === undefined ? input : { ...input, options: { ...input.options, memo: { ...input.options.memo, ...scaledClockMemo(scale) } } });
  }

  async continueAsNew(input: ContinueAsNewInput, next: Next<WorkflowOutboundCallsInterceptor, 'continueAsNew'>): Promise<never> {
    const scale = scaleOfRun();
    return next(scale === undefined ? input : { ...input, options: { ...input.options, memo: { ...input.options.memo, ...scaledClockMemo(scale) } } });
  }
}

export const interceptors: WorkflowInterceptorsFactory = () => ({ outbound: [new ScaledClock()] });
