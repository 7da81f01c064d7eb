import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SweepInput, SweepSummary } from '../../src/review/sweep-types.js';
import { packageRoot } from '../../src/paths.js';
import { TASK_QUEUE } from '../../src/search-attributes.js';
import { fakeScenario, scratch } from '../helpers/fake.js';
import { corpusCopy, someNotes } from '../helpers/kb.js';
import { fakeProfilesFile } from '../helpers/probe.js';
import { useTimeSkippingServer } from '../helpers/servers.js';
import { testWorker, uniqueId } from '../helpers/temporal.js';

const { env } = useTimeSkippingServer();

const fixture = (name: string) => readFile(join(packageRoot(), 'test', 'fixtures', 'harness', name), 'utf8');

test('a rate-limit warning from one launch halves the sweep\'s concurrency for the rest of the sweep', async () => {
  const checkout = await corpusCopy();
  const notes = await someNotes(4);
  const dir = await scratch();
  // claude's stream: the first launch of the first note warns that the five-hour window is nearly used up.
  const lines = (await fixture('claude-stream-rate-limit-warning.jsonl')).split('\n').filter(Boolean);
  const warned = `${lines.join('\n')}\n`;
  const plain = `${lines.filter((line) => !line.includes('rate_limit_event')).join('\n')}\n`;
  const { env: fakeEnv } = await fakeScenario(dir, [
    { match: `note = ${notes[0]}\\n(.|\\n)*criterion = frontmatter/description-discrimination`, attempts: [{ review: 'pass', stdout: warned }] },
    { attempts: [{ review: 'pass', stdout: plain }] },
  ]);
  const profilesFile = await fakeProfilesFile(dir, { reviewer: { harness: 'claude', timeout: '1m' } });
  const input: SweepInput = { checkout, notes, gates: ['frontmatter/*'], grouping: 'pair', profile: 'reviewer', concurrency: 4, batchSize: 100, autoResume: false, profilesFile, env: fakeEnv };
  const workflowId = `gates/${uniqueId('pace-test').replace(/\//g, '-')}`;
  const worker = await testWorker(env(), { stateDir: join(dir, 'state') });
  const summary = (await worker.runUntil(env().client.workflow.execute('gateSweep', { taskQueue: TASK_QUEUE, workflowId, args: [input] }))) as SweepSummary;
  expect(summary.status).toBe('completed');
  expect(summary.counts.problems).toBe(0);

  // The batch handed the sweep its lowered pace.
  const sweepEvents = (await env().client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const childResult = sweepEvents.find((event) => event.childWorkflowExecutionCompletedEventAttributes)?.childWorkflowExecutionCompletedEventAttributes?.result?.payloads?.[0]?.data;
  const batch = JSON.parse(Buffer.from(childResult ?? []).toString()) as { pace?: { concurrency: number; warning: string } };
  expect(batch.pace?.concurrency).toBe(2);
  expect(batch.pace?.warning).toContain('five_hour');

  // In the batch's history: once the launches in flight at the warning drained to 2, never more than 2 ran at once.
  const events = (await env().client.workflow.getHandle(`${workflowId}/batch-1`).fetchHistory()).events ?? [];
  const launches = new Set<string>();
  let inFlight = 0;
  let drained = false;
  let warnedSeen = false;
  let peakAfter = 0;
  for (const event of events) {
    const id = String(event.eventId);
    if (event.activityTaskScheduledEventAttributes?.activityType?.name === 'launch') {
      launches.add(id);
      inFlight += 1;
    }
    const done = event.activityTaskCompletedEventAttributes ?? event.activityTaskFailedEventAttributes;
    if (done && launches.has(String(done.scheduledEventId))) {
      inFlight -= 1;
      if (!warnedSeen && event.activityTaskCompletedEventAttributes && Buffer.from(event.activityTaskCompletedEventAttributes.result?.payloads?.[0]?.data ?? []).toString().includes('rateLimitWarning')) warnedSeen = true;
    }
    if (warnedSeen && inFlight <= 2) drained = true;
    if (drained) peakAfter = Math.max(peakAfter, inFlight);
  }
  expect(warnedSeen).toBe(true);
  expect(launches.size).toBeGreaterThanOrEqual(8);
  expect(peakAfter).toBeLessThanOrEqual(2);
});
