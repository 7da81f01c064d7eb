/**
 * Routes each activity to where its files are: an activity whose input names a checkout (its
 * `<checkout:ID>` or `<worktrees:ID>` root) is scheduled on that checkout's task queue, which only
 * workers holding the checkout poll; any other activity stays on the shared queue (src/places.ts).
 * Runs begun before places name their checkout by a host path: their activities stay on the shared
 * queue, as they were scheduled then, so their histories replay unchanged.
 */
import type { ActivityInput, Next, WorkflowInterceptorsFactory, WorkflowOutboundCallsInterceptor } from '@temporalio/workflow';
import { queueForActivity } from '../places.js';

class CheckoutRouting implements WorkflowOutboundCallsInterceptor {
  async scheduleActivity(input: ActivityInput, next: Next<WorkflowOutboundCallsInterceptor, 'scheduleActivity'>): Promise<unknown> {
    const taskQueue = queueForActivity(input.args);
    return next(taskQueue === undefined ? input : { ...input, options: { ...input.options, taskQueue } });
  }
}

export const interceptors: WorkflowInterceptorsFactory = () => ({ outbound: [new CheckoutRouting()] });
