// Contract: the pinned pi CLI (its anthropic provider), run by the real launch activity (the probe
// workflow on a Temporal test server) against a local stand-in of the Anthropic Messages API.
import { CONTRACT_TEST_MS, expectEnded, expectWroteProbe, reply, useContractStandIn, type Reply } from '../helpers/model-apis/index.js';
import { useTimeSkippingServer } from '../helpers/servers.js';

const { standIn, probe } = useContractStandIn('anthropic');

describe('pi against the Messages API stand-in: launches that end on their own', () => {
  const { env } = useTimeSkippingServer();

  test(
    'the shipped profile writes its declared output, and the launch records the model, usage and cost pi reported',
    async () => {
      const run = await probe(env(), 'pi', [reply.write('probe.md', 'probe ok\n'), reply.text('Done.')]);
      // Two requests: the write tool call and the closing answer.
      expectWroteProbe(run, standIn(), { model: 'claude-sonnet-4-5', modelSource: 'harness', costed: true });
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
      expectEnded(await probe(env(), 'pi', [limit]), 'usage-limit', 1);
      // The launch turns pi's own retries off (they sleep a whole retry-after), so the limit surfaces at once.
      expect(standIn().stats().agentRequests).toBeLessThanOrEqual(4);
    },
    CONTRACT_TEST_MS,
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
      expectEnded(await probe(env(), 'pi', [failure]), 'launch-failed', 3);
      // The relaunch rule decides, not the CLI: a few requests per try at most.
      expect(standIn().stats().agentRequests).toBeLessThanOrEqual(3 * 4);
    },
    CONTRACT_TEST_MS,
  );
});
