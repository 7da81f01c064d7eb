/**
 * Every workflow this code starts carries its release in its memo (src/release.ts): the client's starts and
 * signal-with-starts, and each run a schedule it creates starts. Installed on every client that starts runs —
 * the CLI's (src/client/shared/connection.ts: the installed workflow code's release), the workers' (the quota
 * activities start gates: the worker's own), the test environments' (the test bundle's) — so no start site
 * names it. Children and continued runs are stamped by the workflow interceptors (src/workflows/interceptors.ts).
 */
import type {
  ClientInterceptors,
  CreateScheduleInput,
  WorkflowClientInterceptor,
  WorkflowSignalWithStartInput,
  WorkflowStartInput,
  WorkflowStartUpdateWithStartInput,
} from '@temporalio/client';
import { withRelease } from './release.js';

/** The client interceptors that stamp each start with a release: given, or found once at the first start (the CLI computes it only when it starts a run). */
export function releaseStamp(release: string | (() => Promise<string>)): ClientInterceptors {
  let known: Promise<string> | undefined;
  const stamped = async <T extends { memo?: Record<string, unknown> }>(options: T): Promise<T> => {
    known ??= typeof release === 'string' ? Promise.resolve(release) : release();
    return { ...options, memo: withRelease(options.memo, await known) };
  };
  const workflowStamp: WorkflowClientInterceptor = {
    startWithDetails: async (input: WorkflowStartInput, next) => next({ ...input, options: await stamped(input.options) }),
    signalWithStart: async (input: WorkflowSignalWithStartInput, next) => next({ ...input, options: await stamped(input.options) }),
    startUpdateWithStart: async (input: WorkflowStartUpdateWithStartInput, next) =>
      next({ ...input, workflowStartOptions: await stamped(input.workflowStartOptions) }),
  };
  return {
    workflow: [workflowStamp],
    schedule: [
      {
        create: async (input: CreateScheduleInput, next) =>
          next({
            ...input,
            options: { ...input.options, action: input.options.action.type === 'startWorkflow' ? await stamped(input.options.action) : input.options.action },
          }),
      },
    ],
  };
}
