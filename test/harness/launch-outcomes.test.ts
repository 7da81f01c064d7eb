import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { TASK_QUEUE } from '../../src/search-attributes.js';
import { fakeScenario, readLedger, scratch, type FakeAttempt } from '../helpers/fake.js';
import { fakeProfilesFile, probeInput, probeResult, inState } from '../helpers/probe.js';
import { testWorker, uniqueId } from '../helpers/temporal.js';
import { useDevServer } from '../helpers/servers.js';

const { env } = useDevServer();

async function probeWith(profile: Record<string, unknown>, attempts: FakeAttempt[]) {
  const dir = await scratch();
  const { env: fakeEnv, ledger } = await fakeScenario(dir, [{ attempts }]);
  const profiles = await fakeProfilesFile(dir, { subject: profile });
  const worker = await testWorker(env(), { stateDir: join(dir, 'state') });
  const workflowId = uniqueId('probe/outcomes');
  const result = await worker.runUntil(
    probeResult(
      env().client.workflow.execute('probe', { taskQueue: TASK_QUEUE, workflowId, args: [probeInput(workflowId, 'subject', profiles, fakeEnv)] }),
    ).then((probed) => inState(probed, join(dir, 'state'))),
  );
  return { result, ledger: await readLedger(ledger) };
}

/** Whether a process still runs; a zombie (exited, not yet reaped by a container's init) counts as ended. */
function alive(pid: number): boolean {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return !/^State:\s+Z/m.test(status);
  } catch {
    return false;
  }
}

describe('launch outcomes on a real dev server', () => {
  test('a hang past the timeout is killed with its children and reported as timed out, without a retry', async () => {
    const { result, ledger } = await probeWith({ harness: 'fake', timeout: '2s' }, [{ hang: true, outputs: {} }]);
    expect(result.outcome.status).toBe('timed-out');
    if (result.outcome.status !== 'timed-out') return;
    expect(result.outcome.result.timedOut).toBe(true);
    expect(result.outcome.result.try).toBe(1);
    expect(ledger.filter((entry) => entry.event === 'start')).toHaveLength(1);
    const hang = ledger.find((entry) => entry.event === 'hang');
    expect(hang?.childPid).toBeGreaterThan(0);
    expect(alive(hang!.pid)).toBe(false);
    expect(alive(hang!.childPid!)).toBe(false);
  });

  test('a usage limit is not retried and carries the reset time the harness printed', async () => {
    const { result, ledger } = await probeWith({ harness: 'claude', model: 'claude-test' }, [
      { stdout: 'Claude AI usage limit reached|1767240000\n', exitCode: 1 },
    ]);
    expect(result.outcome).toMatchObject({ status: 'usage-limit', harness: 'claude', resetAt: '2026-01-01T04:00:00.000Z' });
    expect(ledger.filter((entry) => entry.event === 'start')).toHaveLength(1);
  });

  test('a launch that exits 0 without its declared output is reported incomplete, on its first try', async () => {
    const { result } = await probeWith({ harness: 'fake' }, [{ exitCode: 0, outputs: { 'other.md': 'not the output\n' } }]);
    expect(result.outcome.status).toBe('incomplete');
    if (result.outcome.status !== 'incomplete') return;
    expect(result.outcome.result.missing).toEqual(['probe.md']);
    expect(result.outcome.result.try).toBe(1);
  });

  test("a completed launch reports each output's digest and size, the model, tokens and cost the harness printed", async () => {
    const claudeResult = {
      type: 'result',
      subtype: 'success',
      is_error: false,
      result: 'Wrote probe.md.',
      total_cost_usd: 0.0123,
      usage: { input_tokens: 120, output_tokens: 30, cache_read_input_tokens: 5, cache_creation_input_tokens: 7 },
      modelUsage: { 'claude-haiku-x': { costUSD: 0.0003, outputTokens: 3 }, 'claude-sonnet-x': { costUSD: 0.012, outputTokens: 27 } },
    };
    const { result } = await probeWith({ harness: 'claude', model: 'profile-model' }, [
      { outputs: { 'probe.md': 'probe ok\n' }, stdout: JSON.stringify(claudeResult), exitCode: 0 },
    ]);
    expect(result.outcome.status).toBe('completed');
    if (result.outcome.status !== 'completed') return;
    const launch = result.outcome.result;
    expect(launch.outputs).toEqual([{ path: 'probe.md', size: 9, sha256: createHash('sha256').update('probe ok\n').digest('hex') }]);
    expect(launch).toMatchObject({ model: 'claude-sonnet-x', modelSource: 'harness', costUsd: 0.0123, exitCode: 0, timedOut: false });
    expect(launch.usage).toEqual({ inputTokens: 120, outputTokens: 30, cacheReadTokens: 5, cacheWriteTokens: 7 });
    await expect(readFile(join(result.dir, launch.logDir, 'stdout.txt'), 'utf8')).resolves.toContain('"modelUsage"');
  });
});
