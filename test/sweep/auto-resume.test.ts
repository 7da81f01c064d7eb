import { firstTimerMs, quotaSweep, resumedByUpdate, usageLimit } from '../helpers/quota.js';
import { useTimeSkippingServer } from '../helpers/servers.js';
import { executeSweep } from '../helpers/sweep.js';

const { env } = useTimeSkippingServer();

test('a scheduled sweep that hits a usage limit with a known reset time waits for it on a durable timer and goes on by itself', async () => {
  const sweep = await quotaSweep(env(), [{ attempts: [usageLimit(Math.floor(Date.now() / 1000) + 3600), { review: 'pass' }] }]);
  const { input, runId, workflowId } = sweep;
  const summary = await (await sweep.worker(env())).runUntil(executeSweep(env(), input, { workflowId }));

  expect(summary.status).toBe('completed');
  expect(summary.runId).toBe(runId);
  expect(summary.counts.written.pass).toBe(1);
  expect((await sweep.pairs())[0]?.status).toBe('fresh');
  expect(await sweep.starts()).toHaveLength(2);

  const history = await env().client.workflow.getHandle(workflowId).fetchHistory();
  // The timer ran to the reset time (plus a minute's margin), in workflow time: no one resumed it.
  expect(firstTimerMs(history)).toBeGreaterThan(3500_000);
  expect(resumedByUpdate(history)).toBe(false);
});
