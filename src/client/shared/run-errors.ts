/**
 * What an error met while following a run means: a transient one (keep following), the run's own failure
 * in one line, a typed failure among its causes, or a run the server does not know.
 */
import {
  ApplicationFailure,
  CancelledFailure,
  isGrpcServiceError,
  QueryNotRegisteredError,
  TerminatedFailure,
  TimeoutFailure,
  WorkflowFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
  type WorkflowExecutionDescription,
  type WorkflowHandle,
} from '@temporalio/client';
import { rootMessage, UserError } from './errors.js';

/** Why an error while following is no failure of the run: keep following. */
export type Transient = 'no-worker' | 'not-ready' | 'timeout' | 'unavailable';

/** gRPC status codes (from @grpc/grpc-js's `status`), by number so the CLI needs no gRPC import. */
const GRPC = { CANCELLED: 1, DEADLINE_EXCEEDED: 4, RESOURCE_EXHAUSTED: 8, FAILED_PRECONDITION: 9, ABORTED: 10, UNAVAILABLE: 14 } as const;

function grpcCode(error: unknown): number | undefined {
  for (let current = error, depth = 0; current !== undefined && current !== null && depth < 8; depth += 1) {
    if (isGrpcServiceError(current)) return current.code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * The one place that tells a transient error while following from a real one, by error type and
 * gRPC status code: no worker polling yet (the SDK wraps FAILED_PRECONDITION in a ServiceError), a
 * query whose handlers are not set yet, a query or long poll that timed out, a server restarting.
 */
export function transient(error: unknown): Transient | undefined {
  if (error instanceof QueryNotRegisteredError) return 'not-ready';
  if (error instanceof WorkflowUpdateRPCTimeoutOrCancelledError) return 'timeout';
  switch (grpcCode(error)) {
    case GRPC.FAILED_PRECONDITION:
      return 'no-worker';
    case GRPC.DEADLINE_EXCEEDED:
    case GRPC.CANCELLED:
      return 'timeout';
    case GRPC.UNAVAILABLE:
    case GRPC.ABORTED:
    case GRPC.RESOURCE_EXHAUSTED:
      return 'unavailable';
    default:
      return undefined;
  }
}

/** The run's workflow as the server describes it, or the one line that there is none (`no sweep GS-… (workflow gates/GS-… not found)`). */
export async function describeOrRefuse(handle: WorkflowHandle, what: string): Promise<WorkflowExecutionDescription> {
  return handle.describe().catch(() => {
    throw new UserError(`no ${what} (workflow ${handle.workflowId} not found)`);
  });
}

/** How the run's workflow failed, in one line: cancelled, terminated, timed out, or the innermost cause. */
export function failureMessage(workflowId: string, error: unknown): { message: string; status: 'failed' | 'cancelled' } {
  const cause = error instanceof WorkflowFailedError ? error.cause : undefined;
  if (cause instanceof CancelledFailure) return { message: `${workflowId} was cancelled`, status: 'cancelled' };
  if (cause instanceof TerminatedFailure)
    return {
      message: `${workflowId} was terminated${cause.message && cause.message !== 'Workflow execution terminated' ? `: ${cause.message}` : ''}`,
      status: 'cancelled',
    };
  if (cause instanceof TimeoutFailure) return { message: `${workflowId} timed out`, status: 'failed' };
  return { message: `${workflowId} failed: ${error instanceof WorkflowFailedError ? rootMessage(error) : (error as Error).message}`, status: 'failed' };
}

/** The ApplicationFailure of a given type in a workflow failure's causes, if there is one. */
export function applicationFailure(error: WorkflowFailedError, type: string): ApplicationFailure | undefined {
  for (let current: unknown = error.cause, depth = 0; current && depth < 8; depth += 1) {
    if (current instanceof ApplicationFailure && current.type === type) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
