import { join } from 'node:path';
import { selectPairs } from '../../src/review/status.js';
import type { SweepInput, SweepSummary } from '../../src/review/sweep-types.js';
import { TASK_QUEUE } from '../../src/search-attributes.js';
import { fakeScenario, readLedger, scratch } from '../helpers/fake.js';
import { corpusCopy, someNotes } from '../helpers/kb.js';
import { fakeProfilesFile } from '../helpers/probe.js';
import { testWorker, uniqueId } from '../helpers/temporal.js';
import { useTimeSkippingServer } from '../helpers/servers.js';

const { env } = useTimeSkippingServer();

const eventMs = (time: { seconds?: unknown; nanos?: number | null } | null | undefined) =>
  Number(time?.seconds ?? 0) * 1000 + Math.floor((time?.nanos ?? 0) / 1e6);

test('a scheduled sweep that hits a usage limit with a known reset time waits for it on a durable timer and goes on by itself', async () => {
  const checkout = await corpusCopy();
  const notes = await someNotes(1);
  const dir = await scratch();
  const resetEpoch = Math.floor(Date.now() / 1000) + 3600;
  const { env: fakeEnv, ledger } = await fakeScenario(dir, [{ attempts: [{ usageLimit: `Claude AI usage limit reached|${resetEpoch}` }, { review: 'pass' }] }]);
  const profilesFile = await fakeProfilesFile(dir, { fake: { harness: 'fake', timeout: '1m' } });
  const input: SweepInput = {
    checkout,
    notes,
    gates: ['sentence/framing-mismatch'],
    criteria: ['gates'],
    grouping: 'pair',
    profile: 'fake',
    concurrency: 1,
    batchSize: 10,
    autoResume: true,
    profilesFile,
    env: fakeEnv,
  };
  const workflowId = `gates/${uniqueId('scheduled-test').replace(/\//g, '-')}`;
  const worker = await testWorker(env(), { stateDir: join(dir, 'state') });
  const summary = (await worker.runUntil(env().client.workflow.execute('gateSweep', { taskQueue: TASK_QUEUE, workflowId, args: [input] }))) as SweepSummary;

  expect(summary.status).toBe('completed');
  expect(summary.runId).toBe(workflowId.replace(/^gates\//, ''));
  expect(summary.counts.written.pass).toBe(1);
  expect((await selectPairs(checkout, { notes, gates: input.gates, criteria: ['gates'] }))[0]?.status).toBe('fresh');
  expect((await readLedger(ledger)).filter((entry) => entry.event === 'start')).toHaveLength(2);

  const events = (await env().client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const started = events.find((event) => event.timerStartedEventAttributes);
  const fired = events.find((event) => event.timerFiredEventAttributes);
  expect(fired).toBeDefined();
  // The timer ran to the reset time (plus a minute's margin), in workflow time: no one resumed it.
  expect(eventMs(fired!.eventTime) - eventMs(started!.eventTime)).toBeGreaterThan(3500_000);
  expect(events.some((event) => event.workflowExecutionUpdateAcceptedEventAttributes)).toBe(false);
});
