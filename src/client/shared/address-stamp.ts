/** The address this command was given, in each run's memo, so the Web UI's commands reach the same server (none given: none carried). */
import type { ClientInterceptors, ScheduleClientInterceptor, WorkflowClientInterceptor } from '@temporalio/client';
import { ADDRESS_MEMO } from '../../runs/run-commands.js';

/** The client interceptors `base` has, and, given an address, one that puts it in each start's memo. */
export function withAddressStamp(base: ClientInterceptors, address: string | undefined): ClientInterceptors {
  if (address === undefined) return base;
  const stamped = <T extends { memo?: Record<string, unknown> }>(options: T): T => ({ ...options, memo: { ...options.memo, [ADDRESS_MEMO]: address } });
  const workflowStamp: WorkflowClientInterceptor = {
    startWithDetails: (input, next) => next({ ...input, options: stamped(input.options) }),
    signalWithStart: (input, next) => next({ ...input, options: stamped(input.options) }),
    startUpdateWithStart: (input, next) => next({ ...input, workflowStartOptions: stamped(input.workflowStartOptions) }),
  };
  const scheduleStamp: ScheduleClientInterceptor = {
    create: (input, next) =>
      next({
        ...input,
        options: { ...input.options, action: input.options.action.type === 'startWorkflow' ? stamped(input.options.action) : input.options.action },
      }),
  };
  return {
    ...base,
    workflow: [...(Array.isArray(base.workflow) ? base.workflow : []), workflowStamp],
    schedule: [...(base.schedule ?? []), scheduleStamp],
  };
}
