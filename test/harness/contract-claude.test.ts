// Contract: the pinned claude CLI, run by the real launch activity (the probe workflow on a Temporal
// test server) against a local stand-in of the Anthropic Messages API. See docs/harnesses.md.
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
  unifiedRateLimitHeaders,
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

/**
 * Each try is bounded well below the shipped 30 minutes, so a CLI that waits on its own retries
 * shows up as a timed-out launch instead of a hung test; a fail-fast CLI ends long before.
 */
const tryBound = '90s';
const long = 10 * 60_000;

async function probeClaude(env: () => TestWorkflowEnvironment, replies: Reply[], options: { auth?: 'api-key' | 'subscription'; profile?: string } = {}) {
  standIn.script(...replies);
  const name = options.profile ?? 'claude';
  const { profile } = await contractProfile(name, standIn.url, { auth: options.auth ?? 'api-key', overrides: { timeout: tryBound } });
  return probeProfile(env(), name, profile);
}

describe('claude against the Messages API stand-in: launches that end on their own', () => {
  const { env } = useTimeSkippingServer();

  test.each(['claude', 'claude-lean'])(
    'the shipped profile %s writes its declared output, and the launch records the model and usage claude reported',
    async (name) => {
      const run = await probeClaude(env, [reply.write('probe.md', 'probe ok\n'), reply.text('Done.')], { profile: name });
      const result = completedResult(run);
      if (!result) return;
      expect(result.outputs).toEqual([probeFileDigest]);
      expect(result.missing).toEqual([]);
      // The stand-in answers with the model it was asked for: `sonnet` as claude 2.1.197 resolves it.
      expect(result.model).toBe('claude-sonnet-5');
      expect(result.modelSource).toBe('harness');
      expect(result.usage?.inputTokens).toBeGreaterThan(0);
      expect(result.usage?.outputTokens).toBeGreaterThan(0);
      expect(result.costUsd).toBeGreaterThan(0);
      const stats = standIn.stats();
      expect(stats.agentRequests).toBe(2); // the file-writing turn and the closing answer
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
      const run = await probeClaude(env, [limit]);
      expect({ status: run.result.outcome.status, why: describeRun(run) }).toMatchObject({ status: 'usage-limit' });
      expect(run.tries).toBe(1);
      // The shipped profile sets claude's own retries low, so the limit surfaces in seconds, not minutes.
      expect(standIn.stats().agentRequests).toBeLessThanOrEqual(4);
    },
    long,
  );

  test(
    "a subscriber's limit carries the exact reset from claude's rate_limit_event",
    async () => {
      // A reset with seconds in it: claude's notice says only "resets 9:45pm (UTC)", the event has the second.
      const now = Math.floor(Date.now() / 1000);
      const resetsAt = now - (now % 60) + 3 * 3600 + 17;
      const run = await probeClaude(env, [reply.usageLimit({ headers: unifiedRateLimitHeaders({ status: 'rejected', resetsAt }) })], { auth: 'subscription' });
      const { outcome } = run.result;
      expect({ status: outcome.status, why: describeRun(run) }).toMatchObject({ status: 'usage-limit' });
      if (outcome.status !== 'usage-limit') return;
      expect(outcome.resetAt).toBe(new Date(resetsAt * 1000).toISOString());
      expect(run.tries).toBe(1);
    },
    long,
  );

  test(
    "a subscriber's early warning (allowed_warning) lets the launch complete and is kept with its window and reset",
    async () => {
      const now = Math.floor(Date.now() / 1000);
      const resetsAt = now - (now % 60) + 2 * 3600 + 41;
      const headers = unifiedRateLimitHeaders({ status: 'allowed_warning', resetsAt, utilization: 0.95 });
      const run = await probeClaude(env, [reply.write('probe.md', 'probe ok\n', { headers }), reply.text('Done.', { headers })], { auth: 'subscription' });
      const result = completedResult(run);
      if (!result) return;
      expect(result.rateLimitWarning).toMatchObject({ type: 'five_hour', resetsAt: new Date(resetsAt * 1000).toISOString() });
    },
    long,
  );
});

// A server of their own: the quota gates the usage limits above closed keep timers and activities
// on their server that would hold back its time skipping (and with it the relaunch rule's waits).
describe('claude against the Messages API stand-in: relaunches', () => {
  const { env } = useTimeSkippingServer();

  test(
    'a 500 is relaunched by the relaunch rule and ends as launch-failed after the third try',
    async () => {
      const run = await probeClaude(env, [reply.serverError()]);
      expect({ status: run.result.outcome.status, why: describeRun(run) }).toMatchObject({ status: 'launch-failed' });
      expect(run.tries).toBe(3);
      if (run.result.outcome.status === 'launch-failed') expect(run.result.outcome.exitCode).toBe(1);
      // The relaunch rule decides, not the CLI: a few requests per try at most.
      expect(standIn.stats().agentRequests).toBeLessThanOrEqual(3 * 4);
    },
    long,
  );

  test(
    "a dropped connection does not lose the launch: it completes, by claude's own retry or the relaunch rule",
    async () => {
      const run = await probeClaude(env, [reply.drop(), reply.write('probe.md'), reply.text('Done.')]);
      expect({ status: run.result.outcome.status, why: describeRun(run) }).toMatchObject({ status: 'completed' });
      expect(standIn.requests.filter((request) => request.answered === 'drop')).toHaveLength(1);
    },
    long,
  );
});
