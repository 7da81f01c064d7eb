import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { TASK_QUEUE } from '../../src/search-attributes.js';
import { fakeScenario, readLedger, scratch } from '../helpers/fake.js';
import { fakeProfilesFile, probeInput, probeResult, inState } from '../helpers/probe.js';
import { testWorker, uniqueId } from '../helpers/temporal.js';
import { useTimeSkippingServer } from '../helpers/servers.js';

const { env } = useTimeSkippingServer();

async function tryRecord(dir: string, n: number): Promise<{ exitCode: number | null }> {
  return JSON.parse(await readFile(join(dir, '.launch', `try-${n}`, 'try.json'), 'utf8'));
}

const eventMs = (time: { seconds?: unknown; nanos?: number | null } | null | undefined) =>
  Number(time?.seconds ?? 0) * 1000 + Math.floor((time?.nanos ?? 0) / 1e6);
const durationMs = (duration: { seconds?: unknown; nanos?: number | null } | null | undefined) => eventMs(duration);

async function runProbe(attempts: Parameters<typeof fakeScenario>[1][number]['attempts']) {
  const dir = await scratch();
  const { env: fakeEnv, ledger } = await fakeScenario(dir, [{ attempts }]);
  const profiles = await fakeProfilesFile(dir, { fake: { harness: 'fake', timeout: '1m' } });
  const worker = await testWorker(env(), { stateDir: join(dir, 'state') });
  const workflowId = uniqueId('probe/relaunch');
  const [serverStart, wallStart] = [await env().currentTimeMs(), Date.now()];
  const result = await worker.runUntil(
    probeResult(env().client.workflow.execute('probe', { taskQueue: TASK_QUEUE, workflowId, args: [probeInput(workflowId, 'fake', profiles, fakeEnv)] })).then(
      (probed) => inState(probed, join(dir, 'state')),
    ),
  );
  // Time the server skipped: how far its clock moved beyond the wall clock's.
  const skippedMs = (await env().currentTimeMs()) - serverStart - (Date.now() - wallStart);
  const history = await env().client.workflow.getHandle(workflowId).fetchHistory();
  return { result, ledger: await readLedger(ledger), history, skippedMs };
}

/** The rule's 150 s of waits, less a second for the moments between reading the server's clock and the wall clock. */
const skippedAtLeastMs = 149_000;

describe('the relaunch rule', () => {
  // The shipped numbers of the relaunch rule and the launch heartbeat timeout: the kill tests on a dev server
  // (harness/worker-crash, lifecycle/kill-and-resume) wait them out on a scaled clock (test/helpers/scaled-clock.ts).
  test('a launch that exits 1, 1, then 0 is accepted on the third try, after waits of 30 s and then 120 s, under a 15 s heartbeat timeout', async () => {
    const { result, ledger, history, skippedMs } = await runProbe([
      { exitCode: 1, outputs: { 'probe.md': 'bad 1' } },
      { exitCode: 1 },
      { writeDeclared: 'probe ok\n' },
    ]);
    expect(result.outcome.status).toBe('completed');
    if (result.outcome.status !== 'completed') return;
    expect(result.outcome.result.try).toBe(3);
    expect(result.outcome.result.outputs.map((output) => output.path)).toEqual(['probe.md']);
    expect(ledger.filter((entry) => entry.event === 'start').map((entry) => entry.attempt)).toEqual([0, 1, 2]);

    const tries = await Promise.all([1, 2, 3].map((n) => tryRecord(result.dir, n)));
    expect(tries.map((t) => t.exitCode)).toEqual([1, 1, 0]);

    // The history keeps the launch's retry policy and the start of its last try: with an initial interval
    // of 30 s and a backoff of 4, server time between scheduling and the third try is 30 s + 120 s.
    const events = history.events ?? [];
    const scheduled = events.find((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'launch');
    const policy = scheduled?.activityTaskScheduledEventAttributes?.retryPolicy;
    expect(durationMs(policy?.initialInterval)).toBe(30_000);
    expect(policy?.backoffCoefficient).toBe(4);
    expect(policy?.maximumAttempts).toBe(3);
    expect(durationMs(scheduled?.activityTaskScheduledEventAttributes?.heartbeatTimeout)).toBe(15_000);
    const started = events.find((event) => event.activityTaskStartedEventAttributes?.scheduledEventId?.toString() === scheduled?.eventId?.toString());
    expect(started?.activityTaskStartedEventAttributes?.attempt).toBe(3);
    const waited = eventMs(started?.eventTime) - eventMs(scheduled?.eventTime);
    expect(waited).toBeGreaterThanOrEqual(150_000);
    expect(waited).toBeLessThan(155_000); // the two failed tries themselves take well under 5 s
    // Both waits passed on the server's clock alone: it skipped them.
    expect(skippedMs).toBeGreaterThanOrEqual(skippedAtLeastMs);
  });

  test("a launch that exits nonzero three times surfaces as launch-failed, each try's outputs kept aside", async () => {
    const { result, ledger, skippedMs } = await runProbe([{ exitCode: 3, outputs: { 'probe.md': 'failed try\n' } }]);
    expect(result.outcome.status).toBe('launch-failed');
    if (result.outcome.status !== 'launch-failed') return;
    expect(result.outcome.exitCode).toBe(3);
    expect(result.outcome.reason).toMatch(/exited 3 \(try 3\)/);
    expect(ledger.filter((entry) => entry.event === 'start')).toHaveLength(3);
    for (const n of [1, 2, 3]) {
      await expect(readFile(join(result.dir, '.launch', `try-${n}`, 'aside', 'probe.md'), 'utf8')).resolves.toBe('failed try\n');
    }
    await expect(readFile(join(result.dir, 'probe.md'))).rejects.toThrow(/ENOENT/);
    // This file's second run of the rule skips its 30 s and 120 s waits as the first did.
    expect(skippedMs).toBeGreaterThanOrEqual(skippedAtLeastMs);
  });

  const billedTry = { exitCode: 1, costUsd: 0.05, tokens: { input: 100, output: 10 } };

  test('a CLI try that reported its cost and then failed is billed: the launch accepted after it carries it', async () => {
    const { result } = await runProbe([billedTry, { writeDeclared: 'probe ok\n', costUsd: 0.1, tokens: { input: 200, output: 20 } }]);
    expect(result.outcome).toMatchObject({ status: 'completed', result: { costUsd: 0.1, try: 2 } });
    if (result.outcome.status !== 'completed') return;
    expect(result.outcome.result.billedBefore).toEqual([
      { model: 'fake-model-1', usage: expect.objectContaining({ inputTokens: 100, outputTokens: 10 }) as unknown, costUsd: 0.05 },
    ]);
  });

  test('a CLI launch whose three tries each reported a cost and failed carries all three to its launch-failed outcome', async () => {
    const { result } = await runProbe([billedTry]);
    expect(result.outcome.status).toBe('launch-failed');
    if (result.outcome.status !== 'launch-failed') return;
    expect(result.outcome.billed?.map((billed) => billed.costUsd)).toEqual([0.05, 0.05, 0.05]);
  });

  test('time skipping holds for every test of a file: a third run of the rule in the file skips both waits', async () => {
    const { result, skippedMs } = await runProbe([{ exitCode: 1 }, { exitCode: 1 }, { writeDeclared: 'probe ok\n' }]);
    expect(result.outcome.status).toBe('completed');
    expect(skippedMs).toBeGreaterThanOrEqual(skippedAtLeastMs);
  });
});
