import { allHandlersFinished, CancellationScope, condition, isCancellation, TemporalFailure } from '@temporalio/workflow';
import type { ClosedStatus, Stop } from '../runs/stop.js';

/** Thrown by a stop that ends the run; `Lifecycle.close` turns it into the workflow's exhausted result. */
export class RunEnded extends Error {
  constructor(readonly stop: Stop) {
    super(`${stop.kind}: ${stop.reason}`);
    this.name = 'RunEnded';
  }
}

/** Makes the status true on every close; the Update handlers in flight finish first, so their callers get an answer. */
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
