import { quotaStateQuery } from '../../src/workflows/quota-gate.js';
import { quotaSweep, usageLimit } from '../helpers/quota.js';
import { useTimeSkippingServer } from '../helpers/servers.js';
import { executeSweep } from '../helpers/sweep.js';

const { env } = useTimeSkippingServer();

const seconds = (duration: { seconds?: unknown } | null | undefined) => Number(duration?.seconds ?? 0);

test('a usage limit without a reset time auto-resumes by probing after 15, 30, then 60 minutes, until a probe gets through', async () => {
  const noReset = usageLimit();
  const sweep = await quotaSweep(env(), [{ attempts: [noReset, noReset, noReset, noReset, { review: 'pass' }] }]);
  const { input, workflowId } = sweep;
  const [summary, gate] = await (
    await sweep.worker(env())
  ).runUntil(async () => {
    const done = await executeSweep(env(), input, { workflowId });
    return [done, await sweep.gate.query(quotaStateQuery)] as const;
  });

  expect(summary.status).toBe('completed');
  expect(summary.counts.written.pass).toBe(1);
  expect(summary.resumes).toBe(4);
  expect(await sweep.starts()).toHaveLength(5);

  // The sweep's auto-resume timers wait for the gate's probes: 15, 30, 60, 60 minutes (less the seconds a launch took).
  const events = (await env().client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const timers = events.flatMap((event) => (event.timerStartedEventAttributes ? [seconds(event.timerStartedEventAttributes.startToFireTimeout)] : []));
  expect(timers.map((wait) => Math.ceil(wait / 60))).toEqual([15, 30, 60, 60]);
  expect(events.filter((event) => event.timerFiredEventAttributes)).toHaveLength(4);

  expect(gate.state).toMatchObject({ status: 'open', openedBy: 'probe', step: 4 });
});
