/** Workflows cannot start a workflow that is not their child, so a run reaches its account's gate through these (signal-with-start). */
import { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { WorkflowIdConflictPolicy } from '@temporalio/client';
import { QUOTA_GATE, type LimitReport, type QuotaGateView, type QuotaState } from '../../runs/quota.js';
import { quotaGateId } from '../../runs/workflow-ids.js';
import { CommonplaceKind, CommonplaceSubject, TASK_QUEUE } from '../../search-attributes.js';

export interface QuotaGateRequest {
  account: string;
  /** The gate signals it on every transition. */
  workflowId: string;
  /** The run carries the project's search attributes: the gate then does too. */
  searchAttributes: boolean;
}

export interface QuotaLimitRequest extends QuotaGateRequest {
  report: LimitReport;
}

export interface QuotaDependencies {
  /** The worker's own by default. */
  client?: () => Client;
}

/** Answers the gate's state as it now stands. */
async function signalGate(client: Client, request: Pick<QuotaGateRequest, 'account' | 'searchAttributes'>, signal: string, arg: unknown): Promise<QuotaState> {
  const handle = await client.workflow.signalWithStart(QUOTA_GATE.workflowType, {
    workflowId: quotaGateId(request.account),
    taskQueue: TASK_QUEUE,
    args: [{ account: request.account }],
    signal,
    signalArgs: [arg],
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
    staticSummary: `quota gate of ${request.account}: one quota state for every run on the account`,
    ...(request.searchAttributes && {
      typedSearchAttributes: [
        { key: CommonplaceKind, value: 'quota-gate' },
        { key: CommonplaceSubject, value: request.account },
      ],
    }),
  });
  return (await handle.query<QuotaGateView>(QUOTA_GATE.stateQuery)).state;
}

export function createQuotaActivities(dependencies: QuotaDependencies = {}) {
  const client = () => dependencies.client?.() ?? Context.current().client;
  return {
    /** Once per run. */
    async quotaSubscribe(request: QuotaGateRequest): Promise<QuotaState> {
      return signalGate(client(), request, QUOTA_GATE.subscribe, request.workflowId);
    },
    /** It closes the gate for every run on the account. */
    async quotaLimit(request: QuotaLimitRequest): Promise<QuotaState> {
      await signalGate(client(), request, QUOTA_GATE.subscribe, request.workflowId);
      return signalGate(client(), request, QUOTA_GATE.limit, request.report);
    },
    /** As `commonplace quota open` does. */
    async quotaOpen(request: QuotaGateRequest): Promise<QuotaState> {
      return signalGate(client(), request, QUOTA_GATE.open, request.workflowId);
    },
    /** The gate prunes its subscribers by it. */
    async openWorkflows({ workflowIds }: { workflowIds: string[] }): Promise<string[]> {
      const open: string[] = [];
      for (const workflowId of workflowIds) {
        const description = await client()
          .workflow.getHandle(workflowId)
          .describe()
          .catch(() => undefined);
        if (description?.status.name === 'RUNNING') open.push(workflowId);
      }
      return open;
    },
  };
}
