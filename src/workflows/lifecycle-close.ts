/**
 * How a run closes, apart from the state it closes: the workflow's main line in its cancellation
 * scope, a stop that ends the run (`RunEnded`) turned into the workflow's ended result with the work
 * in flight cancelled, the status a cancellation or a failure records before it propagates, and the
 * wait for the Update handlers still in flight. The lifecycle (lifecycle.ts) calls it from `close`.
 */
import { allHandlersFinished, CancellationScope, condition, isCancellation, TemporalFailure } from '@temporalio/workflow';
import type { ClosedStatus, Stop } from '../runs/stop.js';

/** Thrown by a stop that ends the run; `Lifecycle.close` turns it into the workflow's exhausted result. */
export class RunEnded extends Error {
  constructor(readonly stop: Stop) {
    super(`${stop.kind}: ${stop.reason}`);
    this.name = 'RunEnded';
  }
}

/**
 * Runs the workflow's main line and makes the status true on every close: a stop that ends the
 * run gives `ended`'s result (work in flight cancelled), a cancellation is recorded `cancelled`
 * through `closeAs` and propagates, a failure is recorded `failed` and then fails the workflow.
 * A run that returns first lets its Update handlers in flight finish (their callers get an answer).
 */
export async function closeRun<T>(
  main: () => Promise<T>,
  ended: (stop: Stop) => Promise<T>,
  closeAs: (status: ClosedStatus, stage: string) => void,
): Promise<T> {
  const scope = new CancellationScope();
  try {
    const result = await scope.run(main);
    await condition(allHandlersFinished);
    return result;
  } catch (error) {
    if (error instanceof RunEnded) {
      scope.cancel();
      const result = await ended(error.stop);
      await condition(allHandlersFinished);
      return result;
    }
    if (isCancellation(error)) {
      closeAs('cancelled', 'cancelled by the operator');
    } else if (error instanceof TemporalFailure) {
      closeAs('failed', `failed: ${error.message}`);
    }
    throw error;
  }
}
