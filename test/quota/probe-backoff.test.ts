import { join } from 'node:path';
import type { SweepInput, SweepSummary } from '../../src/review/sweep-types.js';
import { quotaAccount } from '../../src/runs/quota.js';
import { quotaGateId } from '../../src/runs/workflow-ids.js';
import { TASK_QUEUE } from '../../src/search-attributes.js';
import { quotaStateQuery } from '../../src/workflows/quota-gate.js';
import { fakeScenario, readLedger, scratch } from '../helpers/fake.js';
import { corpusCopy, someNotes } from '../helpers/kb.js';
import { fakeProfilesFile } from '../helpers/probe.js';
import { useTimeSkippingServer } from '../helpers/servers.js';
import { testWorker, uniqueId } from '../helpers/temporal.js';

const { env } = useTimeSkippingServer();

const seconds = (duration: { seconds?: unknown } | null | undefined) => Number(duration?.seconds ?? 0);

test('a usage limit without a reset time auto-resumes by probing after 15, 30, then 60 minutes, until a probe gets through', async () => {
  const checkout = await corpusCopy();
  const notes = await someNotes(1);
  const dir = await scratch();
  const noReset = { usageLimit: 'Claude AI usage limit reached' };
  const { env: fakeEnv, ledger } = await fakeScenario(dir, [{ attempts: [noReset, noReset, noReset, noReset, { review: 'pass' }] }]);
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
  const workflowId = `gates/${uniqueId('probe-test').replace(/\//g, '-')}`;
  const worker = await testWorker(env(), { stateDir: join(dir, 'state') });
  const gateHandle = env().client.workflow.getHandle(quotaGateId(quotaAccount({ name: 'fake', harness: 'fake', env: fakeEnv })));
  const [summary, gate] = await worker.runUntil(async () => {
    const done = (await env().client.workflow.execute('gateSweep', { taskQueue: TASK_QUEUE, workflowId, args: [input] })) as SweepSummary;
    return [done, await gateHandle.query(quotaStateQuery)] as const;
  });

  expect(summary.status).toBe('completed');
  expect(summary.counts.written.pass).toBe(1);
  expect(summary.resumes).toBe(4);
  expect((await readLedger(ledger)).filter((entry) => entry.event === 'start')).toHaveLength(5);

  // The sweep's auto-resume timers wait for the gate's probes: 15, 30, 60, 60 minutes (less the seconds a launch took).
  const events = (await env().client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const timers = events.flatMap((event) => (event.timerStartedEventAttributes ? [seconds(event.timerStartedEventAttributes.startToFireTimeout)] : []));
  expect(timers.map((wait) => Math.ceil(wait / 60))).toEqual([15, 30, 60, 60]);
  expect(events.filter((event) => event.timerFiredEventAttributes)).toHaveLength(4);

  expect(gate.state).toMatchObject({ status: 'open', openedBy: 'probe', step: 4 });
});
