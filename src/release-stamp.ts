/**
 * Every workflow this release starts carries the release in its memo (src/release.ts): the client's
 * starts and signal-with-starts, and each run a schedule it creates starts. Installed on every client that
 * starts runs — the CLI's (src/client/shared/connection.ts), the workers' (the quota activities start
 * gates), the test environments' — so no start site names it. Children and continued runs are stamped by
 * the workflow interceptors (src/workflows/interceptors.ts).
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

const stamped = <T extends { memo?: Record<string, unknown> }>(options: T): T => ({ ...options, memo: withRelease(options.memo) });

const workflowStamp: WorkflowClientInterceptor = {
  startWithDetails: (input: WorkflowStartInput, next) => next({ ...input, options: stamped(input.options) }),
  signalWithStart: (input: WorkflowSignalWithStartInput, next) => next({ ...input, options: stamped(input.options) }),
  startUpdateWithStart: (input: WorkflowStartUpdateWithStartInput, next) => next({ ...input, workflowStartOptions: stamped(input.workflowStartOptions) }),
};

/** The client interceptors that stamp each start with this release. */
export const releaseStamp: ClientInterceptors = {
  workflow: [workflowStamp],
  schedule: [
    {
      create: (input: CreateScheduleInput, next) =>
        next({
          ...input,
          options: { ...input.options, action: input.options.action.type === 'startWorkflow' ? stamped(input.options.action) : input.options.action },
        }),
    },
  ],
};
