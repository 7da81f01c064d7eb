// Contract: the pinned claude CLI, run by the real launch activity (the probe workflow on a Temporal
// test server) against a local stand-in of the Anthropic Messages API. See docs/harnesses.md.
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import {
  completedResult,
  CONTRACT_TEST_MS,
  expectEnded,
  expectWroteProbe,
  reply,
  unifiedRateLimitHeaders,
  useContractStandIn,
  type Reply,
} from '../helpers/model-apis/index.js';
import { useTimeSkippingServer } from '../helpers/servers.js';

const { standIn, probe } = useContractStandIn('anthropic');
const probeClaude = (env: () => TestWorkflowEnvironment, replies: Reply[], options: { auth?: 'api-key' | 'subscription'; profile?: string } = {}) =>
  probe(env(), options.profile ?? 'claude', replies, { auth: options.auth });

describe('claude against the Messages API stand-in: launches that end on their own', () => {
  const { env } = useTimeSkippingServer();

  test.each(['claude', 'claude-lean'])(
    'the shipped profile %s writes its declared output, and the launch records the model and usage claude reported',
    async (name) => {
      const run = await probeClaude(env, [reply.write('probe.md', 'probe ok\n'), reply.text('Done.')], { profile: name });
      // The stand-in answers with the model it was asked for: `sonnet` as claude 2.1.197 resolves it.
      expectWroteProbe(run, standIn(), { model: 'claude-sonnet-5', modelSource: 'harness', costed: true });
    },
    CONTRACT_TEST_MS,
  );

  test.each<[string, Reply]>([
    ['a 429 rate_limit_error without retry-after', reply.usageLimit()],
    ['a 429 rate_limit_error with retry-after: 3600', reply.usageLimit({ retryAfterSeconds: 3600 })],
    ['a 200 answer whose text is the limit notice', reply.text("You've hit your limit · resets 1:30am (Asia/Dhaka)")],
  ])(
    'a usage limit as %s is a usage-limit failure after one launch',
    async (_title, limit) => {
      expectEnded(await probeClaude(env, [limit]), 'usage-limit', 1);
      // The shipped profile sets claude's own retries low, so the limit surfaces in seconds, not minutes.
      expect(standIn().stats().agentRequests).toBeLessThanOrEqual(4);
    },
    CONTRACT_TEST_MS,
  );

  test(
    "a subscriber's limit carries the exact reset from claude's rate_limit_event",
    async () => {
      // A reset with seconds in it: claude's notice says only "resets 9:45pm (UTC)", the event has the second.
      const now = Math.floor(Date.now() / 1000);
      const resetsAt = now - (now % 60) + 3 * 3600 + 17;
      const run = await probeClaude(env, [reply.usageLimit({ headers: unifiedRateLimitHeaders({ status: 'rejected', resetsAt }) })], { auth: 'subscription' });
      expectEnded(run, 'usage-limit', 1);
      expect(run.result.outcome).toMatchObject({ resetAt: new Date(resetsAt * 1000).toISOString() });
    },
    CONTRACT_TEST_MS,
  );

  test(
    "a subscriber's early warning (allowed_warning) lets the launch complete and is kept with its window and reset",
    async () => {
      const now = Math.floor(Date.now() / 1000);
      const resetsAt = now - (now % 60) + 2 * 3600 + 41;
      const headers = unifiedRateLimitHeaders({ status: 'allowed_warning', resetsAt, utilization: 0.95 });
      const run = await probeClaude(env, [reply.write('probe.md', 'probe ok\n', { headers }), reply.text('Done.', { headers })], { auth: 'subscription' });
      expect(completedResult(run)?.rateLimitWarning).toMatchObject({ type: 'five_hour', resetsAt: new Date(resetsAt * 1000).toISOString() });
    },
    CONTRACT_TEST_MS,
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
      expectEnded(run, 'launch-failed', 3);
      expect(run.result.outcome).toMatchObject({ exitCode: 1 });
      // The relaunch rule decides, not the CLI: a few requests per try at most.
      expect(standIn().stats().agentRequests).toBeLessThanOrEqual(3 * 4);
    },
    CONTRACT_TEST_MS,
  );

  test(
    "a dropped connection does not lose the launch: it completes, by claude's own retry or the relaunch rule",
    async () => {
      expectEnded(await probeClaude(env, [reply.drop(), reply.write('probe.md'), reply.text('Done.')]), 'completed');
      expect(standIn().requests.filter((request) => request.answered === 'drop')).toHaveLength(1);
    },
    CONTRACT_TEST_MS,
  );
});
