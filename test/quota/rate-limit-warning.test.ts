import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { packageRoot } from '../../src/paths.js';
import { useTimeSkippingServer } from '../helpers/servers.js';
import { executeSweep, fakeSweep } from '../helpers/sweep.js';

const { env } = useTimeSkippingServer();

const fixture = (name: string) => readFile(join(packageRoot(), 'test', 'fixtures', 'harness', name), 'utf8');

test("a rate-limit warning from one launch halves the sweep's concurrency for the rest of the sweep", async () => {
  // claude's stream: the first launch of the first note warns that the five-hour window is nearly used up.
  const lines = (await fixture('claude-stream-rate-limit-warning.jsonl')).split('\n').filter(Boolean);
  const warned = `${lines.join('\n')}\n`;
  const plain = `${lines.filter((line) => !line.includes('rate_limit_event')).join('\n')}\n`;
  const sweep = await fakeSweep(
    ({ notes }) => [
      { match: `note = ${notes[0]}\\n(.|\\n)*criterion = frontmatter/description-discrimination`, attempts: [{ review: 'pass', stdout: warned }] },
      { attempts: [{ review: 'pass', stdout: plain }] },
    ],
    { notes: 4, profiles: { reviewer: { harness: 'claude', timeout: '1m' } } },
  );
  const input = sweep.input({ profile: 'reviewer', concurrency: 4, batchSize: 100 });
  const workflowId = `gates/${input.runId}`;
  const summary = await (await sweep.worker(env())).runUntil(executeSweep(env(), input));
  expect(summary.status).toBe('completed');
  expect(summary.counts.problems).toBe(0);

  // The batch handed the sweep its lowered pace.
  const sweepEvents = (await env().client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const childResult = sweepEvents.find((event) => event.childWorkflowExecutionCompletedEventAttributes)?.childWorkflowExecutionCompletedEventAttributes?.result
    ?.payloads?.[0]?.data;
  const batch = JSON.parse(Buffer.from(childResult ?? []).toString()) as { pace?: { concurrency: number; warning: string } };
  expect(batch.pace?.concurrency).toBe(2);
  expect(batch.pace?.warning).toContain('five_hour');

  // In the batch's history: the pace admits units. Once every unit admitted before the warning had
  // finished, never more than 2 units were in flight (from a unit's capture to its acceptance).
  const events = (await env().client.workflow.getHandle(`${workflowId}/batch-1`).fetchHistory()).events ?? [];
  const payload = (data: Uint8Array | null | undefined) => Buffer.from(data ?? []).toString();
  const scheduled = new Map<string, { type: string; key: string }>();
  const launches = new Set<string>();
  const inFlight = new Set<string>();
  let admittedBefore: Set<string> | undefined;
  let warnedSeen = false;
  let peakAfter = 0;
  for (const event of events) {
    const task = event.activityTaskScheduledEventAttributes;
    if (task) {
      const type = task.activityType?.name ?? '';
      const arg = JSON.parse(payload(task.input?.payloads?.[0]?.data)) as { unit?: { key: string }; launchId?: string; attempt?: number };
      const key = arg.unit?.key ?? arg.launchId?.split('/').at(-2) ?? '';
      scheduled.set(String(event.eventId), { type, key });
      if (type === 'launch') launches.add(key);
      if (type === 'captureUnit' && arg.attempt === 1) inFlight.add(key);
    }
    const completed = event.activityTaskCompletedEventAttributes;
    const which = completed ? scheduled.get(String(completed.scheduledEventId)) : undefined;
    if (completed && which?.type === 'launch' && !warnedSeen && payload(completed.result?.payloads?.[0]?.data).includes('rateLimitWarning')) {
      warnedSeen = true;
      admittedBefore = new Set(inFlight);
    }
    if (completed && which?.type === 'acceptUnit') {
      inFlight.delete(which.key);
      admittedBefore?.delete(which.key);
    }
    if (admittedBefore !== undefined && admittedBefore.size === 0) peakAfter = Math.max(peakAfter, inFlight.size);
  }
  expect(warnedSeen).toBe(true);
  expect(launches.size).toBeGreaterThanOrEqual(8);
  expect(admittedBefore?.size).toBe(0);
  expect(peakAfter).toBeLessThanOrEqual(2);
});
