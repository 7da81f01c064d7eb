/**
 * Routes each activity to where its files are: an activity whose input names a checkout (its
 * `<checkout:ID>` or `<worktrees:ID>` root) is scheduled on that checkout's task queue, which only
 * workers holding the checkout poll; any other activity stays on the shared queue (src/places.ts).
 * Runs begun before places name their checkout by a host path: their activities stay on the shared
 * queue, as they were scheduled then, so their histories replay unchanged.
 */
import type { ActivityInput, Next, UpdateInput, WorkflowExecuteInput, WorkflowInboundCallsInterceptor, WorkflowInterceptorsFactory, WorkflowOutboundCallsInterceptor } from '@temporalio/workflow';
import { queueForActivity } from '../places.js';

class CheckoutRouting implements WorkflowOutboundCallsInterceptor {
  async scheduleActivity(input: ActivityInput, next: Next<WorkflowOutboundCallsInterceptor, 'scheduleActivity'>): Promise<unknown> {
    const taskQueue = queueForActivity(input.args);
    return next(taskQueue === undefined ? input : { ...input, options: { ...input.options, taskQueue } });
  }
}

/**
 * A failure thrown by workflow code leaves with its first line only: its stack frames name the worker's
 * own files (the package, the bundle's sources), and a history names no path of a host.
 */
function placeFree(error: unknown): unknown {
  for (let current: unknown = error; current instanceof Error; current = current.cause) {
    if (current.stack !== undefined) current.stack = current.stack.split('\n')[0];
  }
  return error;
}

class PortableFailures implements WorkflowInboundCallsInterceptor {
  async execute(input: WorkflowExecuteInput, next: Next<WorkflowInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    try {
      return await next(input);
    } catch (error) {
      throw placeFree(error);
    }
  }

  async handleUpdate(input: UpdateInput, next: Next<WorkflowInboundCallsInterceptor, 'handleUpdate'>): Promise<unknown> {
    try {
      return await next(input);
    } catch (error) {
      throw placeFree(error);
    }
  }
}

export const interceptors: WorkflowInterceptorsFactory = () => ({ inbound: [new PortableFailures()], outbound: [new CheckoutRouting()] });
