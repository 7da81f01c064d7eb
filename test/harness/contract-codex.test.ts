// Contract: the pinned codex CLI, run by the real launch activity (the probe workflow on a Temporal
// test server) against a local stand-in of the OpenAI Responses API. See docs/harnesses.md.
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import {
  completedResult,
  contractProfile,
  describeRun,
  probeFileDigest,
  probeProfile,
  reply,
  startStandIn,
  stopProbeWorker,
  type RawProfile,
  type Reply,
  type StandIn,
} from '../helpers/model-apis/index.js';
import { freePort } from '../helpers/ports.js';
import { useTimeSkippingServer } from '../helpers/servers.js';

let standIn: StandIn;
beforeAll(async () => {
  standIn = await startStandIn('openai');
});
afterAll(async () => {
  await standIn?.close();
});
beforeEach(() => standIn.resetCounts());
afterEach(() => stopProbeWorker());

/** Each try is bounded well below the shipped 30 minutes, so a CLI that waits forever shows up as a timed-out launch, not a hung test. */
const tryBound = '90s';
const long = 10 * 60_000;

async function probeCodex(env: () => TestWorkflowEnvironment, replies: Reply[], url = standIn.url, overrides: Partial<RawProfile> = {}) {
  standIn.script(...replies);
  const { profile } = await contractProfile('codex', url, { overrides: { timeout: tryBound, ...overrides } });
  return probeProfile(env(), 'codex', profile);
}

describe('codex against the Responses API stand-in: launches that end on their own', () => {
  const { env } = useTimeSkippingServer();

  test(
    "the shipped profile writes its declared output; the profile's model is recorded, codex reporting none, and its usage",
    async () => {
      const run = await probeCodex(env, [reply.write('probe.md', 'probe ok\n'), reply.text('Done.')]);
      const result = completedResult(run);
      if (!result) return;
      expect(result.outputs).toEqual([probeFileDigest]);
      expect(result.model).toBe('gpt-5.1-codex');
      expect(result.modelSource).toBe('profile');
      expect(result.usage?.inputTokens).toBeGreaterThan(0);
      expect(result.usage?.outputTokens).toBeGreaterThan(0);
      const stats = standIn.stats();
      expect(stats.agentRequests).toBe(2); // the exec_command call that writes the file, and the closing answer
      expect(stats.agentBytes).toBeGreaterThan(1000);
    },
    long,
  );

  const inThreeHours = () => Math.floor(Date.now() / 1000) + 3 * 3600;
  test.each<[string, () => Reply]>([
    ['a 429 usage_limit_reached without retry-after', () => reply.usageLimit()],
    ['a 429 usage_limit_reached with retry-after and resets_at', () => reply.usageLimit({ retryAfterSeconds: 3600, resetsAt: inThreeHours() })],
    [
      'a 200 answer whose text is the limit notice',
      () => reply.text('You’ve hit your usage limit. Visit https://chatgpt.com/codex/settings/usage to purchase more credits or try again at 6:33 PM.'),
    ],
  ])(
    'a usage limit as %s is a usage-limit failure after one launch',
    async (_title, limit) => {
      const run = await probeCodex(env, [limit()]);
      expect({ status: run.result.outcome.status, why: describeRun(run) }).toMatchObject({ status: 'usage-limit' });
      expect(run.tries).toBe(1);
    },
    long,
  );
});

// A server of their own: the quota gates the usage limits above closed keep timers and activities
// on their server that would hold back its time skipping (and with it the relaunch rule's waits).
describe('codex against the Responses API stand-in: relaunches', () => {
  const { env } = useTimeSkippingServer();

  test(
    'a 500 is relaunched by the relaunch rule and ends as launch-failed after the third try',
    async () => {
      const run = await probeCodex(env, [reply.serverError()]);
      expect({ status: run.result.outcome.status, why: describeRun(run) }).toMatchObject({ status: 'launch-failed' });
      expect(run.tries).toBe(3);
      if (run.result.outcome.status === 'launch-failed') expect(run.result.outcome.exitCode).toBe(1);
      // The relaunch rule decides, not the CLI: a few requests per try at most.
      expect(standIn.stats().agentRequests).toBeLessThanOrEqual(3 * 4);
    },
    long,
  );

  test(
    'codex pointed at a closed port fails within a bounded time: launch-failed after three tries, not a timed-out launch',
    async () => {
      // A timed-out try would end the probe at once as `timed-out` (it spends an attempt, it is not relaunched).
      // The profile's bound on an unreachable endpoint (60 s by default) is shortened to keep the test short.
      const closed = `http://127.0.0.1:${await freePort()}`;
      const run = await probeCodex(env, [], closed, { 'unreachable-timeout': '3s' });
      expect({ status: run.result.outcome.status, why: describeRun(run) }).toMatchObject({ status: 'launch-failed' });
      expect(run.tries).toBe(3);
      expect(standIn.stats().requests).toBe(0);
    },
    long,
  );
});
