// The history a sweep cost: events over every run of its workflows (the sweep, its batches, their continuations).
import type { Client } from '@temporalio/client';

export async function sweepHistory(client: Client, runId: string): Promise<{ events: number; runs: number }> {
  let events = 0;
  let runs = 0;
  for await (const execution of client.workflow.list({ query: `WorkflowId STARTS_WITH "gates/${runId}"` })) {
    events += execution.historyLength;
    runs += 1;
  }
  return { events, runs };
}
