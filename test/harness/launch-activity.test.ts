import { CancelledFailure } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createHarnessActivities } from '../../src/activities/harness/launch.js';
import type { LaunchInput, LaunchResult, UsageLimitDetails } from '../../src/activities/index.js';
import type { HarnessName } from '../../src/harness/profiles.js';
import { packageRoot } from '../../src/paths.js';
import { fakeHarnessPath } from '../../src/worker.js';
import { fakeProfile, fakeScenario, readLedger, scratch, waitFor, type FakeAttempt } from '../helpers/fake.js';

const fixture = (name: string) => readFile(join(packageRoot(), 'test', 'fixtures', 'harness', name), 'utf8');
const now = new Date('2026-12-02T15:00:00Z');
const { launch } = createHarnessActivities({ fakeHarnessPath, clock: () => now, timeZone: 'UTC', heartbeatIntervalMs: 100, killGraceMs: 500 });

async function prepare(harness: HarnessName, attempts: FakeAttempt[], timeoutMs = 30_000): Promise<{ input: LaunchInput; ledger: string }> {
  const dir = await scratch();
  const { env, ledger } = await fakeScenario(dir, [{ attempts }]);
  const profile = fakeProfile({ name: `fake-${harness}`, harness, command: fakeHarnessPath, env, timeoutMs });
  return { input: { launchId: 'test/launch', profile, dir, prompt: 'write it\noutput = out.md\n', outputs: ['out.md'] }, ledger };
}

function alive(pid: number): boolean {
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}

describe('the launch activity', () => {
  test.each<[string, HarnessName, string, 'stdout' | 'stderr', number, string | null]>([
    ['claude "usage limit reached|<epoch>"', 'claude', 'claude-usage-limit-pipe.txt', 'stdout', 1, '2025-11-12T13:00:00.000Z'],
    ['claude\'s exit-0 success result "5-hour limit reached ∙ resets 2am"', 'claude', 'claude-usage-limit-exit0.json', 'stdout', 0, '2026-12-03T02:00:00.000Z'],
    ['claude "You\'ve hit your limit · resets 1:30am (Asia/Dhaka)"', 'claude', 'claude-hit-your-limit.json', 'stdout', 1, '2026-12-02T19:30:00.000Z'],
    ["claude's 429 rate_limit_error", 'claude', 'claude-rate-limit-429.json', 'stdout', 1, null],
    ['codex "hit your usage limit … try again at 6:33 PM" in --json events', 'codex', 'codex-usage-limit.jsonl', 'stdout', 1, '2026-12-02T18:33:00.000Z'],
    ["codex's notice on stderr", 'codex', 'codex-usage-limit-stderr.txt', 'stderr', 1, '2026-12-02T18:33:00.000Z'],
    ["pi's provider rate-limit error", 'pi', 'pi-usage-limit.jsonl', 'stdout', 1, null],
  ])('a usage limit from %s is a non-retryable failure with its reset time', async (_title, harness, file, stream, exitCode, resetAt) => {
    const text = await fixture(file);
    const { input, ledger } = await prepare(harness, [{ [stream]: text, exitCode, outputs: { 'out.md': 'partial\n' } }]);
    const failure = await new MockActivityEnvironment().run(launch, input).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ApplicationFailure);
    const app = failure as ApplicationFailure;
    expect(app.type).toBe('usage-limit');
    expect(app.nonRetryable).toBe(true);
    expect((app.details?.[0] as UsageLimitDetails).resetAt).toBe(resetAt);
    expect((await readLedger(ledger)).filter((entry) => entry.event === 'start')).toHaveLength(1);
    // The partial output is set aside, never left where it could be accepted.
    await expect(readFile(join(input.dir, 'out.md'))).rejects.toThrow(/ENOENT/);
    await expect(readFile(join(input.dir, '.launch', 'try-1', 'aside', 'out.md'), 'utf8')).resolves.toBe('partial\n');
  });

  test('heartbeats while the harness runs', async () => {
    const { input } = await prepare('fake', [{ delayMs: 1500, writeDeclared: 'done\n' }]);
    const env = new MockActivityEnvironment();
    const beats: unknown[] = [];
    env.on('heartbeat', (details: unknown) => beats.push(details));
    const result = (await env.run(launch, input)) as LaunchResult;
    expect(result.exitCode).toBe(0);
    expect(beats.length).toBeGreaterThanOrEqual(5);
    expect(beats.at(-1)).toMatchObject({ pid: expect.any(Number), elapsedMs: expect.any(Number) });
  });

  test('cancellation kills the harness and its children and sets its outputs aside', async () => {
    const { input, ledger } = await prepare('fake', [{ hang: true, outputs: {} }]);
    const env = new MockActivityEnvironment();
    const running = env.run(launch, input).catch((error: unknown) => error);
    await waitFor('the hang to start', async () => (await readLedger(ledger)).some((entry) => entry.event === 'hang'));
    env.cancel();
    expect(await running).toBeInstanceOf(CancelledFailure);
    const hang = (await readLedger(ledger)).find((entry) => entry.event === 'hang')!;
    await waitFor('the process group to end', async () => !alive(hang.pid) && !alive(hang.childPid!), 5000);
  });

  test('a harness CLI that is not installed is a non-retryable failure naming it', async () => {
    const { input } = await prepare('codex', [{}]);
    input.profile = { ...input.profile, command: 'codex-not-installed-anywhere' };
    const failure = (await new MockActivityEnvironment().run(launch, input).catch((error: unknown) => error)) as ApplicationFailure;
    expect(failure.type).toBe('harness-missing');
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toMatch(/codex-not-installed-anywhere/);
  });

  test('an output path outside the launch directory is refused before anything runs', async () => {
    const { input, ledger } = await prepare('fake', [{}]);
    input.outputs = ['../escape.md'];
    const failure = (await new MockActivityEnvironment().run(launch, input).catch((error: unknown) => error)) as ApplicationFailure;
    expect(failure.type).toBe('bad-launch-input');
    expect(await readLedger(ledger)).toEqual([]);
  });
});

describe("a write into the worker's state directory", () => {
  test("is named in the launch result and the try's log directory; the worker's own tries index is not", async () => {
    const stateDir = await scratch();
    const withState = createHarnessActivities({ fakeHarnessPath, stateDir, clock: () => now, timeZone: 'UTC', heartbeatIntervalMs: 100, killGraceMs: 500 });
    const { input } = await prepare('fake', [{ writeDeclared: 'done\n', writeOutside: { [join(stateDir, 'planted', 'notes.txt')]: "not the worker's\n" } }]);
    const result = (await new MockActivityEnvironment().run(withState.launch, input)) as LaunchResult;
    expect(result.exitCode).toBe(0);
    expect(result.strayWrites).toEqual([join('planted', 'notes.txt')]);
    await expect(readFile(join(input.dir, result.logDir, 'stray-writes.txt'), 'utf8')).resolves.toBe(`${join('planted', 'notes.txt')}\n`);
  });

  test('nothing is named when the try wrote only its outputs', async () => {
    const stateDir = await scratch();
    const withState = createHarnessActivities({ fakeHarnessPath, stateDir, clock: () => now, timeZone: 'UTC', heartbeatIntervalMs: 100, killGraceMs: 500 });
    const { input } = await prepare('fake', [{ writeDeclared: 'done\n' }]);
    const result = (await new MockActivityEnvironment().run(withState.launch, input)) as LaunchResult;
    expect(result.exitCode).toBe(0);
    expect(result.strayWrites).toBeUndefined();
  });
});
