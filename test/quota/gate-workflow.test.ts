import { join } from 'node:path';
import { quotaGateId } from '../../src/runs/workflow-ids.js';
import { TASK_QUEUE } from '../../src/search-attributes.js';
import { limitSignal, quotaStateQuery, subscribeSignal, type QuotaGateView } from '../../src/workflows/quota-gate.js';
import { scratch, waitFor } from '../helpers/fake.js';
import { useTimeSkippingServer } from '../helpers/servers.js';
import { testWorker } from '../helpers/temporal.js';

const { env } = useTimeSkippingServer();

test('a gate past its history budget continues as new with its state, keeping only the subscribers whose runs are open', async () => {
  const account = `claude/budget-test-${process.pid}`;
  const resetAt = new Date(Date.now() + 3600_000).toISOString();
  const worker = await testWorker(env(), { stateDir: join(await scratch(), 'state') });
  await worker.runUntil(async () => {
    // A run that is still open (another gate stands in for it), and many that closed long ago.
    const open = await env().client.workflow.start('quotaGate', {
      taskQueue: TASK_QUEUE,
      workflowId: quotaGateId(`${account}-open-run`),
      args: [{ account: `${account}-open-run` }],
    });
    // The gate's estimate: 4 at start, a limit 4, its notice 2, its timer 4 — then 13 subscriptions of 4 each pass 65 with the last one.
    const gate = await env().client.workflow.start('quotaGate', {
      taskQueue: TASK_QUEUE,
      workflowId: quotaGateId(account),
      args: [{ account, historyBudget: 65 }],
    });
    const firstRun = gate.firstExecutionRunId;
    await gate.signal(limitSignal, { reason: 'usage limit reached', launchId: 'gates/closed-run-0/pair/1', resetAt });
    // The limit taken (its notice sent, its timer started) before anyone subscribes: the estimate then grows by 4 a subscription.
    for (let deadline = Date.now() + 200_000; (await gate.query(quotaStateQuery)).state.status !== 'closed-until' && Date.now() < deadline;)
      await new Promise((done) => setTimeout(done, 50));
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
    // Neither gate may go on into the next test's skipped time.
    await Promise.all([open.terminate(), gate.terminate()]);
  });
});

test("a scenario account's open gate whose subscribed runs have all closed ends by itself after its idle period, and the next subscription starts it again, open", async () => {
  const account = `fake/fake~idle${process.pid}`;
  const worker = await testWorker(env(), { stateDir: join(await scratch(), 'state') });
  await worker.runUntil(async () => {
    const gate = await env().client.workflow.start('quotaGate', { taskQueue: TASK_QUEUE, workflowId: quotaGateId(account), args: [{ account }] });
    // A run that has closed (no such workflow is open).
    await gate.signal(subscribeSignal, `gates/closed-run-${process.pid}`);
    // The time-skipping server moves the clock past the idle period while the result is awaited.
    await gate.result();
    expect((await gate.describe()).status.name).toBe('COMPLETED');

    const again = await env().client.workflow.signalWithStart('quotaGate', {
      taskQueue: TASK_QUEUE,
      workflowId: quotaGateId(account),
      args: [{ account }],
      signal: subscribeSignal,
      signalArgs: [`gates/next-run-${process.pid}`],
    });
    expect(again.signaledRunId).not.toBe(gate.firstExecutionRunId);
    expect(await again.query(quotaStateQuery)).toMatchObject({ state: { status: 'open' }, subscribers: 1 });
    await env().client.workflow.getHandle(quotaGateId(account)).terminate();
  });
});

test("a scenario account's open gate with a subscribed run still open keeps running past its idle period, having checked", async () => {
  const account = `fake/fake~busy${process.pid}`;
  const worker = await testWorker(env(), { stateDir: join(await scratch(), 'state') });
  await worker.runUntil(async () => {
    // Another gate stands in for a run that is still open.
    const open = await env().client.workflow.start('quotaGate', {
      taskQueue: TASK_QUEUE,
      workflowId: quotaGateId(`${account}-open-run`),
      args: [{ account: `${account}-open-run`, idleMs: 24 * 3600_000 }],
    });
    const gate = await env().client.workflow.start('quotaGate', {
      taskQueue: TASK_QUEUE,
      workflowId: quotaGateId(account),
      args: [{ account, idleMs: 60_000 }],
    });
    await gate.signal(subscribeSignal, open.workflowId);
    await gate.signal(subscribeSignal, `gates/closed-run-${process.pid}`);
    await env().sleep(5 * 60_000);
    // Each idle check is an activity in the gate's history; after the first, the closed run is dropped.
    const checked = async () => ((await gate.fetchHistory()).events ?? []).filter((event) => event.activityTaskCompletedEventAttributes).length;
    for (let deadline = Date.now() + 200_000; (await checked()) === 0 && Date.now() < deadline;) await env().sleep(60_000);
    expect(await checked()).toBeGreaterThan(0);
    expect((await gate.describe()).status.name).toBe('RUNNING');
    expect(await gate.query(quotaStateQuery)).toMatchObject({ state: { status: 'open' }, subscribers: 1 });
    await Promise.all([open.terminate(), gate.terminate()]);
  });
});

test("a real account's open gate never ends by itself: past any idle period it runs, checking nothing", async () => {
  const account = `claude/standing-test-${process.pid}`;
  const worker = await testWorker(env(), { stateDir: join(await scratch(), 'state') });
  await worker.runUntil(async () => {
    const gate = await env().client.workflow.start('quotaGate', {
      taskQueue: TASK_QUEUE,
      workflowId: quotaGateId(account),
      args: [{ account, idleMs: 60_000 }],
    });
    await gate.signal(subscribeSignal, `gates/closed-run-${process.pid}`);
    await env().sleep(30 * 60_000);
    expect(await gate.query(quotaStateQuery)).toMatchObject({ state: { status: 'open' }, subscribers: 1 });
    expect((await gate.describe()).status.name).toBe('RUNNING');
    expect(((await gate.fetchHistory()).events ?? []).some((event) => event.activityTaskScheduledEventAttributes)).toBe(false);
    await gate.terminate();
  });
});

// These two go together, in this order: the first leaves a closed gate behind as its worker stops; the
// next runs on a server of its own (useTimeSkippingServer), which skips whatever the last test left.
let leftBehind = '';
test('a closed gate left open as its test ends (its worker stopped with it)', async () => {
  const account = `claude/left-behind-${process.pid}`;
  leftBehind = quotaGateId(account);
  // On the server's clock, which earlier tests of the file moved ahead.
  const resetAt = new Date((await env().currentTimeMs()) + 3600_000).toISOString();
  const worker = await testWorker(env(), { stateDir: join(await scratch(), 'state') });
  await worker.runUntil(async () => {
    const gate = await env().client.workflow.start('quotaGate', { taskQueue: TASK_QUEUE, workflowId: leftBehind, args: [{ account }] });
    await gate.signal(limitSignal, { reason: 'usage limit reached', launchId: 'gates/closed-run/pair/1', resetAt });
    // The memo is the server's: reading it asks no worker.
    await waitFor('the gate to close', async () => memoStatus(await gate.describe()) === 'closed-until', 60_000);
  });
});

test('the next test has a server of its own without that gate, free to skip past a reset (no task of the last test holds its time)', async () => {
  expect(leftBehind).not.toBe('');
  await expect(env().client.workflow.getHandle(leftBehind).describe()).rejects.toThrow(/not found/i);
  const worker = await testWorker(env(), { stateDir: join(await scratch(), 'state') });
  await worker.runUntil(async () => {
    const account = `claude/after-${process.pid}`;
    const resetAt = new Date((await env().currentTimeMs()) + 3600_000).toISOString();
    const gate = await env().client.workflow.start('quotaGate', { taskQueue: TASK_QUEUE, workflowId: quotaGateId(account), args: [{ account }] });
    await gate.signal(limitSignal, { reason: 'usage limit reached', launchId: 'gates/closed-run/pair/2', resetAt });
    await waitFor('the gate to close', async () => memoStatus(await gate.describe()) === 'closed-until', 60_000);
    const skipped = env().sleep(2 * 3600_000);
    await waitFor('the gate to open at its reset', async () => memoStatus(await gate.describe()) === 'open', 60_000);
    await skipped;
  });
});

function memoStatus(description: { memo?: Record<string, unknown> }): string | undefined {
  return (description.memo?.quota as { status?: string } | undefined)?.status;
}
