import { CancelledFailure } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { readFileSync } from 'node:fs';
import { mkdir, readFile, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createHarnessActivities } from '../../src/activities/harness/launch.js';
import { STRAY_WALK_LIMIT, watchStateWrites } from '../../src/activities/harness/state-writes.js';
import type { LaunchInput, LaunchResult, UsageLimitDetails } from '../../src/activities/index.js';
import type { HarnessName } from '../../src/harness/profiles.js';
import { packageRoot } from '../../src/paths.js';
import { fakeHarnessPath } from '../../src/worker.js';
import { ledgerStarts, fakeProfile, fakeScenario, readLedger, scratch, waitFor, type FakeAttempt } from '../helpers/fake.js';

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
    expect(await ledgerStarts(ledger)).toHaveLength(1);
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

  test("a held checkout and its worktrees inside the state directory are not walked: a try writing its outputs in a worktree there names nothing, and says nothing of the checkout's files", async () => {
    const stateDir = await scratch();
    const checkout = join(stateDir, 'kb-checkout');
    const worktrees = join(stateDir, 'kb-checkout.worktrees');
    await mkdir(join(checkout, 'notes'), { recursive: true });
    const past = new Date(Date.now() - 3_600_000);
    for (let index = 0; index <= STRAY_WALK_LIMIT; index += 1) {
      await writeFile(join(checkout, 'notes', `note-${index}.md`), '');
      await utimes(join(checkout, 'notes', `note-${index}.md`), past, past);
    }
    const dir = join(worktrees, 'AAS-2026-12-06-quill-01', '.commonplace', 'analysis', 'launches', 'boundary', '1');
    await mkdir(dir, { recursive: true });
    const { env } = await fakeScenario(await scratch(), [
      { attempts: [{ writeDeclared: 'done\n', writeOutside: { [join(checkout, 'notes', 'edited.md')]: 'the guard sees it\n' } }] },
    ]);
    const held = createHarnessActivities({
      fakeHarnessPath,
      stateDir,
      checkoutDirs: () => [checkout, worktrees],
      clock: () => now,
      timeZone: 'UTC',
      heartbeatIntervalMs: 100,
      killGraceMs: 500,
    });
    const input: LaunchInput = { launchId: 'test/in-worktree', profile: fakeProfile({ env }), dir, prompt: 'write it\noutput = out.md\n', outputs: ['out.md'] };
    const result = (await new MockActivityEnvironment().run(held.launch, input)) as LaunchResult;
    expect(result.exitCode).toBe(0);
    expect(result.strayWrites).toBeUndefined();
    await expect(readFile(join(dir, result.logDir, 'stray-writes.txt'))).rejects.toThrow(/ENOENT/);
    // The same check without the checkouts held walks into them: it names their files or stops at its bound there.
    const unheld = await watchStateWrites(stateDir, dir);
    try {
      const check = await unheld.check(Date.now() - 60_000);
      expect([...check.written, ...check.unexamined].filter((path) => path.startsWith('kb-checkout'))).not.toEqual([]);
      expect(check.visited).toBeGreaterThan(STRAY_WALK_LIMIT);
    } finally {
      unheld.close();
    }
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

describe('the stray-write check among concurrent launches of a run', () => {
  const unitPrompt = (unit: string) => `write it\nunit = ${unit}\noutput = out.md\n`;
  const logged: string[] = [];
  const logger = {
    log: (_level: string, message: string) => void logged.push(message),
    trace: () => undefined,
    debug: () => undefined,
    info: () => undefined,
    warn: (message: string) => void logged.push(message),
    error: (message: string) => void logged.push(message),
  };

  test('names a file written outside every launch directory, never what a concurrent launch wrote in its own', async () => {
    const stateDir = await scratch();
    const go = join(await scratch(), 'go');
    const runDir = join(stateDir, 'review', 'GS-2026-12-05-concurrent');
    const { env } = await fakeScenario(await scratch(), [
      { match: 'unit = a', attempts: [{ waitForFile: go, writeDeclared: 'a\n', writeOutside: { '../../notes.txt': 'climbed out\n' } }] },
      { match: 'unit = b', attempts: [{ writeDeclared: 'b\n', writeOutside: { 'scratch/more.txt': 'its own\n' } }] },
    ]);
    const profile = fakeProfile({ env });
    const input = (unit: string): LaunchInput => ({
      launchId: `test/${unit}`,
      profile,
      dir: join(runDir, `unit-${unit}-0123456789`, 'attempt-1'),
      prompt: unitPrompt(unit),
      outputs: ['out.md'],
      files: { 'prompt.md': unitPrompt(unit), [join('inputs', 'note.md')]: `# ${unit}\n` },
    });
    const withState = createHarnessActivities({ fakeHarnessPath, stateDir, clock: () => now, timeZone: 'UTC', heartbeatIntervalMs: 100, killGraceMs: 500 });
    const ledger = env['COMMONPLACE_FAKE_LEDGER'] as string;
    logged.length = 0;
    const a = new MockActivityEnvironment({ attempt: 1 }, { logger }).run(withState.launch, input('a'));
    await waitFor("launch a's try to wait", async () => (await readLedger(ledger)).some((entry) => entry.event === 'waiting'));
    // Launch b runs and ends inside a's try: its directory, inputs, outputs and try logs are its own work.
    const b = (await new MockActivityEnvironment({ attempt: 1 }, { logger }).run(withState.launch, input('b'))) as LaunchResult;
    expect(b.exitCode).toBe(0);
    await writeFile(go, '');
    const result = (await a) as LaunchResult;
    expect(result.exitCode).toBe(0);
    const stray = join('review', 'GS-2026-12-05-concurrent', 'notes.txt');
    expect(result.strayWrites).toEqual([stray]);
    expect(b.strayWrites).toBeUndefined();
    await expect(readFile(join(input('a').dir, result.logDir, 'stray-writes.txt'), 'utf8')).resolves.toBe(`${stray}\n`);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toContain(`outside every launch directory: ${stray}`);
    expect(logged[0]).not.toMatch(/unit-b/);
  });
  test('says where it stopped looking when a stray directory is too large to walk', async () => {
    const stateDir = await scratch();
    await mkdir(join(stateDir, 'dump'), { recursive: true });
    const past = new Date(Date.now() - 3_600_000);
    for (let index = 0; index <= STRAY_WALK_LIMIT; index += 1) {
      await writeFile(join(stateDir, 'dump', `file-${index}.txt`), '');
      await utimes(join(stateDir, 'dump', `file-${index}.txt`), past, past); // left there long before this try
    }
    const { env } = await fakeScenario(await scratch(), [{ attempts: [{ writeDeclared: 'a\n' }] }]);
    const dir = join(stateDir, 'review', 'GS-2026-12-05-bounded', 'unit-a-0123456789', 'attempt-1');
    const withState = createHarnessActivities({ fakeHarnessPath, stateDir, clock: () => now, timeZone: 'UTC', heartbeatIntervalMs: 100, killGraceMs: 500 });
    logged.length = 0;
    const result = (await new MockActivityEnvironment({ attempt: 1 }, { logger }).run(withState.launch, {
      launchId: 'test/bounded',
      profile: fakeProfile({ env }),
      dir,
      prompt: unitPrompt('a'),
      outputs: ['out.md'],
    })) as LaunchResult;
    expect(result.strayWrites).toBeUndefined();
    await expect(readFile(join(dir, result.logDir, 'stray-writes.txt'), 'utf8')).resolves.toBe(`# not looked at past ${STRAY_WALK_LIMIT} entries: dump\n`);
    expect(logged).toEqual([expect.stringContaining(`stopped after ${STRAY_WALK_LIMIT} entries and did not look into dump`)]);
  });
});

describe("the stray-write check's cost", () => {
  /** A try's writes, played by the test: a concurrent launch's unit of the run, and one file climbed out of the launch directory. */
  async function oneTry(stateDir: string, run: string): Promise<{ written: string[]; visited: number; unexamined: string[] }> {
    const launchDir = join(stateDir, 'review', run, 'unit-a-0123456789', 'attempt-1');
    const watch = await watchStateWrites(stateDir, launchDir);
    try {
      const sinceMs = Date.now();
      await mkdir(join(launchDir, '.launch', 'try-1'), { recursive: true });
      await writeFile(join(launchDir, 'out.md'), 'mine\n');
      await mkdir(join(stateDir, 'review', run, 'unit-b-0123456789', 'attempt-1'), { recursive: true });
      await writeFile(join(stateDir, 'review', run, 'unit-b-0123456789', 'attempt-1', 'out.md'), 'theirs\n');
      await writeFile(join(stateDir, 'review', run, 'notes.txt'), 'climbed out\n');
      await mkdir(join(stateDir, 'tries'), { recursive: true });
      await writeFile(join(stateDir, 'tries', '4242.json'), '{}\n');
      return await watch.check(sinceMs);
    } finally {
      watch.close();
    }
  }

  test('does not grow with the runs the worker held before', async () => {
    const fresh = await scratch();
    const first = await oneTry(fresh, 'GS-2026-12-05-now');

    const held = await scratch();
    const past = new Date(Date.now() - 3_600_000);
    for (let run = 0; run < 20; run += 1) {
      for (let unit = 0; unit < 50; unit += 1) {
        const dir = join(held, 'review', `GS-2026-12-04-run-${run}`, `unit-${unit}-0123456789`, 'attempt-1');
        await mkdir(join(dir, '.launch', 'try-1'), { recursive: true });
        await writeFile(join(dir, 'out.md'), 'old\n');
        await writeFile(join(dir, '.launch', 'try-1', 'stdout.txt'), 'old\n');
      }
    }
    // An earlier run's leftover in the run's folder of this very run name: old, so not this try's.
    await mkdir(join(held, 'review', 'GS-2026-12-05-now'), { recursive: true });
    await writeFile(join(held, 'review', 'GS-2026-12-05-now', 'old-notes.txt'), 'old\n');
    await utimes(join(held, 'review', 'GS-2026-12-05-now', 'old-notes.txt'), past, past);
    const later = await oneTry(held, 'GS-2026-12-05-now');

    expect(first.written).toEqual([join('review', 'GS-2026-12-05-now', 'notes.txt')]);
    expect(later.written).toEqual(first.written);
    expect(later.visited).toBe(first.visited);
    expect(later.unexamined).toEqual([]);
  });

  test('a stray directory too large to walk is said to be unexamined, not passed over', async () => {
    const stateDir = await scratch();
    await mkdir(join(stateDir, 'dump'), { recursive: true });
    for (let index = 0; index <= STRAY_WALK_LIMIT; index += 1) await writeFile(join(stateDir, 'dump', `file-${index}.txt`), '');
    const watch = await watchStateWrites(stateDir, join(stateDir, 'review', 'GS-2026-12-05-big', 'unit-a-0123456789', 'attempt-1'));
    try {
      const check = await watch.check(Date.now());
      expect(check.unexamined).toEqual(['dump']);
      expect(check.visited).toBeLessThanOrEqual(STRAY_WALK_LIMIT + 10);
    } finally {
      watch.close();
    }
  });
});
