/**
 * Routes an activity whose input names a checkout to that checkout's task queue (src/checkout/places.ts), and keeps the compatibility
 * boundary (src/release.ts, docs/upgrading.md): a run begun on a release too old fails its workflow task with one line naming the way out;
 * a child or continued run carries the release that starts it (and the starter's address) in its memo, as the client's starts do.
 */
import { workflowInfo } from '@temporalio/workflow';
import type {
  ActivityInput,
  ContinueAsNewInput,
  Next,
  StartChildWorkflowExecutionInput,
  UpdateInput,
  WorkflowExecuteInput,
  WorkflowInboundCallsInterceptor,
  WorkflowInterceptorsFactory,
  WorkflowOutboundCallsInterceptor,
} from '@temporalio/workflow';
import { queueForActivity } from '../checkout/places.js';
import { RELEASE, refusalOf, withRelease } from '../release.js';
import { ADDRESS_MEMO } from '../runs/run-commands.js';

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

/**
 * The refusal as an error whose stack is its one line, which nothing rewrites: as a workflow task's error
 * leaves the workflow's VM, the VM would put the bundle's file and line (a path of the host) before it.
 */
function refusalError(line: string): Error {
  const error = new Error(line);
  const stack = `Error: ${line}`;
  Object.defineProperty(error, 'stack', { get: () => stack, set: () => undefined, configurable: true });
  return error;
}

/** Runs begun before the oldest release this one runs are refused before any of their code runs. */
class ReleaseBoundary implements WorkflowInboundCallsInterceptor {
  async execute(input: WorkflowExecuteInput, next: Next<WorkflowInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    const { workflowType, workflowId, memo } = workflowInfo();
    const refusal = refusalOf({ workflowType, workflowId, memo });
    // A plain Error fails the workflow task, not the run: it waits for a worker that runs it, or for its operator.
    if (refusal !== undefined) throw refusalError(refusal);
    return next(input);
  }
}

/** The address the parent's starter named, for a child's memo. */
function parentAddress(): Record<string, unknown> {
  const address = workflowInfo().memo?.[ADDRESS_MEMO];
  return address === undefined ? {} : { [ADDRESS_MEMO]: address };
}

/**
 * The release of the code running this task: the worker's build ID (src/workflow-code.ts; on replay, the one
 * the history recorded for the task), or this version alone under a worker that names no release of it.
 */
function runningRelease(): string {
  const buildId = workflowInfo().currentDeploymentVersion?.buildId;
  return buildId?.startsWith(`${RELEASE}+`) ? buildId : RELEASE;
}

/** Children and continued runs begin on the code that starts them: their memo says so (the rest of a continued run's memo carried, a child's starter's address too). */
class ReleaseStamp implements WorkflowOutboundCallsInterceptor {
  async startChildWorkflowExecution(
    input: StartChildWorkflowExecutionInput,
    next: Next<WorkflowOutboundCallsInterceptor, 'startChildWorkflowExecution'>,
  ): Promise<[Promise<string>, Promise<unknown>]> {
    return next({ ...input, options: { ...input.options, memo: withRelease({ ...parentAddress(), ...input.options.memo }, runningRelease()) } });
  }

  async continueAsNew(input: ContinueAsNewInput, next: Next<WorkflowOutboundCallsInterceptor, 'continueAsNew'>): Promise<never> {
    return next({ ...input, options: { ...input.options, memo: withRelease({ ...workflowInfo().memo, ...input.options.memo }, runningRelease()) } });
  }
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

// The boundary inside PortableFailures: its refusal leaves with its one line too.
export const interceptors: WorkflowInterceptorsFactory = () => ({
  inbound: [new PortableFailures(), new ReleaseBoundary()],
  outbound: [new CheckoutRouting(), new ReleaseStamp()],
});
