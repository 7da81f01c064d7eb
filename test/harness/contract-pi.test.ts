// Contract: the pinned pi CLI (its anthropic provider), run by the real launch activity (the probe
// workflow on a Temporal test server) against a local stand-in of the Anthropic Messages API.
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
  type Reply,
  type StandIn,
} from '../helpers/model-apis/index.js';
import { useTimeSkippingServer } from '../helpers/servers.js';

let standIn: StandIn;
beforeAll(async () => {
  standIn = await startStandIn('anthropic');
});
afterAll(async () => {
  await standIn?.close();
});
beforeEach(() => standIn.resetCounts());
afterEach(() => stopProbeWorker());

/** Each try is bounded well below the shipped 30 minutes, so a CLI that sleeps on a retry-after shows up as a timed-out launch, not a hung test. */
const tryBound = '90s';
const long = 10 * 60_000;

async function probePi(env: () => TestWorkflowEnvironment, replies: Reply[]) {
  standIn.script(...replies);
  const { profile } = await contractProfile('pi', standIn.url, { overrides: { timeout: tryBound } });
  return probeProfile(env(), 'pi', profile);
}

describe('pi against the Messages API stand-in: launches that end on their own', () => {
  const { env } = useTimeSkippingServer();

  test(
    'the shipped profile writes its declared output, and the launch records the model, usage and cost pi reported',
    async () => {
      const run = await probePi(env, [reply.write('probe.md', 'probe ok\n'), reply.text('Done.')]);
      const result = completedResult(run);
      if (!result) return;
      expect(result.outputs).toEqual([probeFileDigest]);
      expect(result.model).toBe('claude-sonnet-4-5');
      expect(result.modelSource).toBe('harness');
      expect(result.usage?.inputTokens).toBeGreaterThan(0);
      expect(result.usage?.outputTokens).toBeGreaterThan(0);
      expect(result.costUsd).toBeGreaterThan(0);
      const stats = standIn.stats();
      expect(stats.agentRequests).toBe(2); // the write tool call and the closing answer
      expect(stats.agentBytes).toBeGreaterThan(1000);
    },
    long,
  );

  test.each<[string, Reply]>([
    ['a 429 rate_limit_error without retry-after', reply.usageLimit()],
    ['a 429 rate_limit_error with retry-after: 3600', reply.usageLimit({ retryAfterSeconds: 3600 })],
    ['a 200 answer whose text is the limit notice', reply.text("You've hit your limit · resets 1:30am (Asia/Dhaka)")],
  ])(
    'a usage limit as %s is a usage-limit failure after one launch',
    async (_title, limit) => {
      const run = await probePi(env, [limit]);
      expect({ status: run.result.outcome.status, why: describeRun(run) }).toMatchObject({ status: 'usage-limit' });
      expect(run.tries).toBe(1);
      // The launch turns pi's own retries off (they sleep a whole retry-after), so the limit surfaces at once.
      expect(standIn.stats().agentRequests).toBeLessThanOrEqual(4);
    },
    long,
  );
});

// A server of their own: the quota gates the usage limits above closed keep timers and activities
// on their server that would hold back its time skipping (and with it the relaunch rule's waits).
describe('pi against the Messages API stand-in: relaunches', () => {
  const { env } = useTimeSkippingServer();

  test.each<[string, Reply]>([
    ['a 500', reply.serverError()],
    ['dropped connections', reply.drop()],
  ])(
    'pi ending in an error with exit 0 (%s) is a failed launch, relaunched and then launch-failed, not incomplete',
    async (_title, failure) => {
      const run = await probePi(env, [failure]);
      expect({ status: run.result.outcome.status, why: describeRun(run) }).toMatchObject({ status: 'launch-failed' });
      expect(run.tries).toBe(3);
      // The relaunch rule decides, not the CLI: a few requests per try at most.
      expect(standIn.stats().agentRequests).toBeLessThanOrEqual(3 * 4);
    },
    long,
  );
});
