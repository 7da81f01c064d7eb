import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createHarnessActivities } from '../../src/activities/harness/launch.js';
import type { LaunchActivity, LaunchExitDetails, LaunchInput, LaunchResult, UsageLimitDetails } from '../../src/harness/launch-contract.js';
import { parseJsonLines } from '../../src/harness/json-stream.js';
import type { HarnessName, Profile } from '../../src/harness/profiles.js';
import { bareClaudeNote } from '../../src/harness/launch-env.js';
import { packageRoot } from '../../src/paths.js';
import { fakeHarnessPath } from '../../src/worker.js';
import { fakeProfile, fakeScenario, readLedger, scratch, type FakeAttempt } from '../helpers/fake.js';

const fixture = (name: string) => readFile(join(packageRoot(), 'test', 'fixtures', 'harness', name), 'utf8');
const fixtureEvents = async (name: string) => parseJsonLines(await fixture(name));
const now = new Date('2026-12-03T15:00:00Z');
const { launch } = createHarnessActivities({ fakeHarnessPath, clock: () => now, timeZone: 'UTC', heartbeatIntervalMs: 100, killGraceMs: 500 });

async function prepare(harness: HarnessName, attempts: FakeAttempt[], extra: Partial<Profile> = {}): Promise<{ input: LaunchInput; ledger: string }> {
  const dir = await scratch();
  const { env, ledger } = await fakeScenario(dir, [{ attempts }]);
  const profile = fakeProfile({ name: `fake-${harness}`, harness, command: fakeHarnessPath, timeoutMs: 30_000, ...extra, env: { ...env, ...extra.env } });
  return { input: { launchId: 'test/launch', profile, dir, prompt: 'write it\noutput = out.md\n', outputs: ['out.md'] }, ledger };
}

const failureOf = async (input: LaunchInput): Promise<ApplicationFailure> => {
  const failure = await new MockActivityEnvironment().run(launch, input).catch((error: unknown) => error);
  expect(failure).toBeInstanceOf(ApplicationFailure);
  return failure as ApplicationFailure;
};

describe('the launch follows the harness while it runs', () => {
  test("heartbeat details carry the turn, the last tool use and tokens so far, read from claude's stream as it is written", async () => {
    const { input } = await prepare('claude', [
      { events: await fixtureEvents('claude-stream-success.jsonl'), eventDelayMs: 250, outputs: { 'out.md': 'hello\n' }, stdout: '' },
    ]);
    const env = new MockActivityEnvironment();
    const beats: LaunchActivity[] = [];
    env.on('heartbeat', (details: unknown) => beats.push(details as LaunchActivity));
    const result = (await env.run(launch, input)) as LaunchResult;
    expect(result).toMatchObject({ exitCode: 0, model: 'claude-sonnet-5', modelSource: 'harness', turns: 2, toolUses: 1 });
    // Seen while it ran, not only at the end: a beat after the Write and before the last event.
    expect(beats.some((beat) => beat.lastTool === 'Write out.md' && beat.turns === 1)).toBe(true);
    expect(beats.at(-1)).toMatchObject({
      pid: expect.any(Number),
      elapsedMs: expect.any(Number),
      turns: 2,
      toolUses: 1,
      lastTool: 'Write out.md',
      tokens: 202,
    });
  });

  test('an allowed_warning rate-limit event is handed on in the result, for the sweep to go slower', async () => {
    const { input } = await prepare('claude', [{ stdout: await fixture('claude-stream-rate-limit-warning.jsonl'), outputs: { 'out.md': 'hello\n' } }]);
    const result = (await new MockActivityEnvironment().run(launch, input)) as LaunchResult;
    expect(result.rateLimitWarning).toEqual({ type: 'five_hour', resetsAt: '2026-12-03T19:45:58.000Z' });
  });

  test("a codex that cannot reach its endpoint is ended after the profile's unreachable-timeout, as a failed launch the relaunch rule retries", async () => {
    const { input } = await prepare('codex', [{ events: await fixtureEvents('codex-unreachable.jsonl'), hang: true }], { unreachableTimeoutMs: 1000 });
    const started = Date.now();
    const failure = await failureOf(input);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(failure.type).toBe('launch-exit');
    expect(failure.nonRetryable).toBe(false);
    expect(failure.message).toMatch(/could not reach its endpoint for 1 s \(Reconnecting\.\.\. waiting for network/);
    expect((failure.details?.[0] as LaunchExitDetails).harnessError).toMatch(/waiting for network/);
  });
});

describe('a CLI error reported with exit 0 is a failed launch', () => {
  test.each<[string, HarnessName, () => Promise<string>, RegExp]>([
    [
      'pi\'s "Connection error." (pi --mode json exits 0)',
      'pi',
      () => fixture('pi-connection-error.jsonl'),
      /exited 0 but reported an error: Connection error\./,
    ],
    [
      "claude's is_error result that is not a usage limit",
      'claude',
      async () =>
        JSON.stringify({
          type: 'result',
          subtype: 'success',
          is_error: true,
          api_error_status: 500,
          result: 'API Error: 500 Internal server error',
          modelUsage: {},
        }),
      /exited 0 but reported an error: API Error: 500/,
    ],
    [
      "codex's turn.failed",
      'codex',
      async () => '{"type":"turn.started"}\n{"type":"turn.failed","error":{"message":"stream disconnected"}}\n',
      /exited 0 but reported an error: stream disconnected/,
    ],
  ])('%s throws launch-exit, outputs set aside', async (_title, harness, stdout, message) => {
    const { input } = await prepare(harness, [{ stdout: await stdout(), exitCode: 0, outputs: { 'out.md': 'partial\n' } }]);
    const failure = await failureOf(input);
    expect(failure.type).toBe('launch-exit');
    expect(failure.nonRetryable).toBe(false);
    expect(failure.message).toMatch(message);
    await expect(readFile(join(input.dir, '.launch', 'try-1', 'aside', 'out.md'), 'utf8')).resolves.toBe('partial\n');
  });
});

describe("claude's rate-limit events", () => {
  test('a rejected window gives the exact reset time even when the result says only "Request rejected (429)"', async () => {
    const { input } = await prepare('claude', [{ stdout: await fixture('claude-stream-rejected-429.jsonl'), exitCode: 1 }]);
    const failure = await failureOf(input);
    expect(failure.type).toBe('usage-limit');
    expect(failure.details?.[0] as UsageLimitDetails).toMatchObject({ resetAt: '2026-12-03T19:45:59.000Z', rateLimitType: 'five_hour' });
    expect((failure.details?.[0] as UsageLimitDetails).notice).toMatch(/^API Error: Request rejected \(429\)/);
  });

  test("a subscriber's session limit resets at the event's time, not the minute of the text", async () => {
    const { input } = await prepare('claude', [{ stdout: await fixture('claude-stream-session-limit.jsonl'), exitCode: 1 }]);
    const failure = await failureOf(input);
    expect(failure.type).toBe('usage-limit');
    expect((failure.details?.[0] as UsageLimitDetails).resetAt).toBe('2026-12-03T19:45:59.000Z');
  });
});

describe('what a launch prepares for its CLI', () => {
  test("claude: the profile's startup files that exist are joined and handed to it with --append-system-prompt-file", async () => {
    const { input, ledger } = await prepare('claude', [{ outputs: { 'out.md': 'x\n' }, stdout: '' }], {
      startupFiles: ['AGENTS.md', 'CLAUDE.md'],
      flags: ['--bare'],
    });
    await writeFile(join(input.dir, 'AGENTS.md'), 'the method\n');
    await new MockActivityEnvironment().run(launch, input);
    const start = (await readLedger(ledger)).find((entry) => entry.event === 'start') as unknown as { argv: string[] };
    expect(start.argv.slice(-3)).toEqual(['--append-system-prompt-file', '.launch/startup.md', '--bare']);
    await expect(readFile(join(input.dir, '.launch', 'startup.md'), 'utf8')).resolves.toBe(`${bareClaudeNote}\n# AGENTS.md\n\nthe method\n`);
  });

  test('pi: the launch runs with its own agent directory under .launch, holding the retry settings', async () => {
    const dir = await scratch();
    const script =
      'const d = process.env.PI_CODING_AGENT_DIR; require("fs").writeFileSync("out.md", d + "\\n" + require("fs").readFileSync(d + "/settings.json", "utf8"))';
    // A stand-in `pi` that is node itself: its argv starts with pi's flags, so the script goes in a file node runs.
    await writeFile(join(dir, 'fake-pi.cjs'), script);
    await writeFile(join(dir, 'fake-pi.sh'), `#!/bin/sh\nexec "${process.execPath}" "${join(dir, 'fake-pi.cjs')}"\n`, { mode: 0o755 });
    const profile = fakeProfile({ name: 'pi-x', harness: 'pi', command: join(dir, 'fake-pi.sh'), provider: 'anthropic', env: { HOME: join(dir, 'home') } });
    const result = (await new MockActivityEnvironment().run(launch, { launchId: 'test/pi', profile, dir, prompt: 'x\n', outputs: ['out.md'] })) as LaunchResult;
    expect(result.missing).toEqual([]);
    const written = await readFile(join(dir, 'out.md'), 'utf8');
    expect(written.slice(0, written.indexOf('\n'))).toBe(join(dir, '.launch', 'pi-agent'));
    expect(JSON.parse(written.slice(written.indexOf('\n') + 1))).toEqual({ retry: { enabled: false, maxRetries: 0, provider: { maxRetries: 0 } } });
  });
});

describe('profile env on the worker', () => {
  test('a ${NAME} the worker does not have is a non-retryable bad-launch-input naming profile and variable, and nothing runs', async () => {
    const { input, ledger } = await prepare('fake', [{}], { env: { API_KEY: '${COMMONPLACE_TEST_UNSET_VARIABLE}' } });
    const failure = await failureOf(input);
    expect(failure.type).toBe('bad-launch-input');
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toBe(
      "profile fake-fake: env API_KEY needs ${COMMONPLACE_TEST_UNSET_VARIABLE}, which is not set on this worker (set it in the worker's environment)",
    );
    expect(await readLedger(ledger)).toEqual([]);
  });

  test("a ${NAME} is resolved from the worker's environment, which the harness also keeps", async () => {
    process.env.COMMONPLACE_TEST_SECRET = 'from-the-worker';
    try {
      const dir = await scratch();
      const script =
        'require("fs").writeFileSync("out.md", `${process.env.KEY} ${process.env.COMMONPLACE_TEST_SECRET} ${process.env.CLAUDE_CODE_MAX_RETRIES}`)';
      const profile = fakeProfile({
        name: 'node',
        harness: 'fake',
        command: process.execPath,
        flags: ['-e', script],
        env: { KEY: 'k-${COMMONPLACE_TEST_SECRET}' },
      });
      const result = (await new MockActivityEnvironment().run(launch, {
        launchId: 'test/env',
        profile,
        dir,
        prompt: 'x\n',
        outputs: ['out.md'],
      })) as LaunchResult;
      expect(result.missing).toEqual([]);
      await expect(readFile(join(dir, 'out.md'), 'utf8')).resolves.toBe('k-from-the-worker from-the-worker undefined');
      // The command line recorded for the try holds no resolved value.
      expect(await readFile(join(dir, result.logDir, 'try.json'), 'utf8')).not.toContain('from-the-worker');
    } finally {
      delete process.env.COMMONPLACE_TEST_SECRET;
    }
  });
});
