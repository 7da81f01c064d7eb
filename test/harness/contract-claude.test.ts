// Contract: the pinned claude CLI, run by the real launch activity (the probe workflow on a Temporal
// test server) against a local stand-in of the Anthropic Messages API. See docs/harnesses.md.
import { completedResult, CONTRACT_TEST_MS, describeContract, expectEnded, reply, unifiedRateLimitHeaders } from '../helpers/model-apis/index.js';

const { standIn, probe } = describeContract({
  harness: 'claude',
  api: 'anthropic',
  profiles: ['claude', 'claude-lean'],
  // The stand-in answers with the model it was asked for: `sonnet` as claude 2.1.197 resolves it.
  recorded: { model: 'claude-sonnet-5', modelSource: 'harness', costed: true },
  // The shipped profile sets claude's own retries low, so a limit surfaces in seconds, not minutes.
  limitRequests: 4,
  relaunched: [['a 500', () => reply.serverError()]],
  exitCode: 1,
});

/** A reset a few hours on, with seconds in it: claude's notice says only "resets 9:45pm (UTC)", the event has the second. */
const resetIn = (hours: number, seconds: number) => Math.floor(Date.now() / 60_000) * 60 + hours * 3600 + seconds;

describe("claude against the Messages API stand-in: a subscriber's limits and a dropped connection", () => {
  test(
    "a subscriber's limit carries the exact reset from claude's rate_limit_event",
    async () => {
      const resetsAt = resetIn(3, 17);
      const headers = unifiedRateLimitHeaders({ status: 'rejected', resetsAt });
      const run = await probe('claude', [reply.usageLimit({ headers })], { auth: 'subscription' });
      expectEnded(run, 'usage-limit', 1);
      expect(run.result.outcome).toMatchObject({ resetAt: new Date(resetsAt * 1000).toISOString() });
    },
    CONTRACT_TEST_MS,
  );

  test(
    "a subscriber's early warning (allowed_warning) lets the launch complete and is kept with its window and reset",
    async () => {
      const resetsAt = resetIn(2, 41);
      const headers = unifiedRateLimitHeaders({ status: 'allowed_warning', resetsAt, utilization: 0.95 });
      const run = await probe('claude', [reply.write('probe.md', 'probe ok\n', { headers }), reply.text('Done.', { headers })], { auth: 'subscription' });
      expect(completedResult(run)?.rateLimitWarning).toMatchObject({ type: 'five_hour', resetsAt: new Date(resetsAt * 1000).toISOString() });
    },
    CONTRACT_TEST_MS,
  );

  test(
    "a dropped connection does not lose the launch: it completes, by claude's own retry or the relaunch rule",
    async () => {
      expectEnded(await probe('claude', [reply.drop(), reply.write('probe.md'), reply.text('Done.')]), 'completed');
      expect(standIn().requests.filter((request) => request.answered === 'drop')).toHaveLength(1);
    },
    CONTRACT_TEST_MS,
  );
});
