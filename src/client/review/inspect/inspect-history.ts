/** `review inspect`'s reading of workflow histories: every launch of a run, across its batches and continue-as-new. */
import { defaultPayloadConverter, WorkflowNotFoundError, type Client, type WorkflowHandle } from '@temporalio/client';
import type { LaunchInput, LaunchResult } from '../../../harness/launch-contract.js';
import { launchCost } from '../../../harness/prices.js';
import type { TokenTotals } from '../../../runs/spend.js';
import type { LaunchList, LaunchRecord } from './inspect-record.js';

type History = Awaited<ReturnType<WorkflowHandle['fetchHistory']>>;
type HistoryEvent = NonNullable<History['events']>[number];

const decode = (payload: unknown): unknown => (payload ? defaultPayloadConverter.fromPayload(payload as never) : undefined);

type Execution = { workflowId: string; events: HistoryEvent[] };

const eventsOf = async (client: Client, workflowId: string, runId: string | undefined): Promise<HistoryEvent[]> =>
  (await client.workflow.getHandle(workflowId, runId).fetchHistory()).events ?? [];

/** Every execution of a workflow and its children (a sweep's batches), oldest first, across continue-as-new. */
async function histories(client: Client, workflowId: string): Promise<Execution[]> {
  const chain: HistoryEvent[][] = [];
  for (let runId: string | undefined, hop = 0; hop === 0 || (runId && hop < 1000); hop++) {
    const events = await eventsOf(client, workflowId, runId);
    chain.unshift(events);
    runId = events[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId ?? undefined;
  }
  const out: Execution[] = [];
  for (const events of chain) {
    out.push({ workflowId, events });
    for (const event of events) {
      const child = event.childWorkflowExecutionStartedEventAttributes?.workflowExecution;
      if (child?.workflowId && child.runId) out.push(...(await childHistories(client, child.workflowId, child.runId)));
    }
  }
  return out;
}

/** A child's executions from its first run forward (a batch continues as new when its history grows). */
async function childHistories(client: Client, workflowId: string, firstRunId: string): Promise<Execution[]> {
  const out: Execution[] = [];
  for (let runId: string | undefined = firstRunId, hop = 0; runId && hop < 1000; hop++) {
    const events = await eventsOf(client, workflowId, runId);
    out.push({ workflowId, events });
    runId = events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
  }
  return out;
}

const tokensOf = (usage: LaunchResult['usage']): TokenTotals | null =>
  usage === null
    ? null
    : { input: usage.inputTokens, output: usage.outputTokens, cacheRead: usage.cacheReadTokens ?? 0, cacheWrite: usage.cacheWriteTokens ?? 0 };

/** A launch scheduled and not closed yet: nothing known of how it ran. */
const STILL_RUNNING = { outcome: 'running', model: null, try: null, exitCode: null, durationMs: null, tokens: null, costUsd: null } as const;

/** The `launch` activities of one execution: scheduled, and how each closed (or that it still runs). */
function launchesIn(workflowId: string, events: HistoryEvent[]): LaunchRecord[] {
  const records = new Map<string, LaunchRecord>();
  const closed = (scheduledEventId: unknown) => records.get(String(scheduledEventId));
  for (const event of events) {
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled?.activityType?.name === 'launch') {
      const input = decode(scheduled.input?.payloads?.[0]) as Partial<LaunchInput> | undefined;
      const summary = decode(event.userMetadata?.summary);
      const launchId = input?.launchId ?? '(unknown)';
      records.set(String(event.eventId), { workflowId, launchId, summary: typeof summary === 'string' ? summary : null, ...STILL_RUNNING });
      continue;
    }
    const completed = event.activityTaskCompletedEventAttributes;
    const failed = event.activityTaskFailedEventAttributes ?? event.activityTaskTimedOutEventAttributes;
    const cancelled = event.activityTaskCanceledEventAttributes;
    const record = closed(completed?.scheduledEventId ?? failed?.scheduledEventId ?? cancelled?.scheduledEventId);
    if (!record) continue;
    if (completed) {
      const result = decode(completed.result?.payloads?.[0]) as LaunchResult | undefined;
      if (!result) continue;
      const { model, try: attempt, exitCode, durationMs, missing } = result;
      Object.assign(record, { model, try: attempt, exitCode, durationMs, tokens: tokensOf(result.usage), costUsd: launchCost(result).costUsd });
      record.outcome = result.timedOut ? 'timed-out' : missing.length > 0 ? 'incomplete' : 'completed';
      if (missing.length > 0) record.message = `missing ${missing.join(', ')}`;
    } else if (failed) {
      record.outcome = 'failed';
      const failure = failed.failure;
      record.message = [failure?.cause?.message, failure?.message].find((message) => message) ?? 'the activity failed';
    } else {
      record.outcome = 'cancelled';
    }
  }
  return [...records.values()];
}

/** Every launch of the run, read from its histories (and its batches'). */
export async function launchList(client: Client | string, workflowId: string): Promise<LaunchList> {
  if (typeof client === 'string')
    return { source: 'unavailable', why: `the run directory holds no launch records and no server answers (${client})`, records: [] };
  try {
    const all = await histories(client, workflowId);
    return { source: 'history', records: all.flatMap(({ workflowId: id, events }) => launchesIn(id, events)) };
  } catch (error) {
    const why =
      error instanceof WorkflowNotFoundError
        ? `the server no longer has workflow ${workflowId} (its history was deleted after the retention period)`
        : ((error as Error).message.split('\n')[0] ?? String(error));
    return { source: 'unavailable', why: `the run directory holds no launch records and ${why}`, records: [] };
  }
}
