import { join } from 'node:path';
import { quotaGateId } from '../../src/runs/quota.js';
import { TASK_QUEUE } from '../../src/search-attributes.js';
import { limitSignal, quotaStateQuery, subscribeSignal, type QuotaGateView } from '../../src/workflows/quota-gate.js';
import { scratch } from '../helpers/fake.js';
import { useTimeSkippingServer } from '../helpers/servers.js';
import { testWorker } from '../helpers/temporal.js';

const { env } = useTimeSkippingServer();

test('a gate past its history budget continues as new with its state, keeping only the subscribers whose runs are open', async () => {
  const account = `claude/budget-test-${process.pid}`;
  const resetAt = new Date(Date.now() + 3600_000).toISOString();
  const worker = await testWorker(env(), { stateDir: join(await scratch(), 'state') });
  await worker.runUntil(async () => {
    // A run that is still open (another gate stands in for it), and many that closed long ago.
    const open = await env().client.workflow.start('quotaGate', { taskQueue: TASK_QUEUE, workflowId: quotaGateId(`${account}-open-run`), args: [{ account: `${account}-open-run` }] });
    // The gate's estimate: 4 at start, a limit 4, its notice 2, its timer 4 — then 13 subscriptions of 4 each pass 65 with the last one.
    const gate = await env().client.workflow.start('quotaGate', { taskQueue: TASK_QUEUE, workflowId: quotaGateId(account), args: [{ account, historyBudget: 65 }] });
    const firstRun = gate.firstExecutionRunId;
    await gate.signal(limitSignal, { reason: 'usage limit reached', launchId: 'gates/closed-run-0/pair/1', resetAt });
    // The limit taken (its notice sent, its timer started) before anyone subscribes: the estimate then grows by 4 a subscription.
    for (let deadline = Date.now() + 200_000; (await gate.query(quotaStateQuery)).state.status !== 'closed-until' && Date.now() < deadline; ) await new Promise((done) => setTimeout(done, 50));
    for (let index = 1; index <= 12; index++) await gate.signal(subscribeSignal, `gates/closed-run-${index}`);
    await gate.signal(subscribeSignal, open.workflowId);

    const deadline = Date.now() + 200_000;
    let view: QuotaGateView | undefined;
    let runId = firstRun;
    while (Date.now() < deadline) {
      runId = (await gate.describe()).runId;
      view = await gate.query(quotaStateQuery);
      if (runId !== firstRun && view.subscribers === 1) break;
      await new Promise((done) => setTimeout(done, 100));
    }
    expect(runId).not.toBe(firstRun);
    expect(view).toMatchObject({ subscribers: 1, state: { status: 'closed-until', resetAt, version: 1 } });
  });
});
