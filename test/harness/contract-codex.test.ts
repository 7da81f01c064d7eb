// Contract: the pinned codex CLI, run by the real launch activity (the probe workflow on a Temporal
// test server) against a local stand-in of the OpenAI Responses API. See docs/harnesses.md.
import { CONTRACT_TEST_MS, expectEnded, expectWroteProbe, reply, useContractStandIn, type Reply } from '../helpers/model-apis/index.js';
import { freePort } from '../helpers/ports.js';
import { useTimeSkippingServer } from '../helpers/servers.js';

const { standIn, probe } = useContractStandIn('openai');

describe('codex against the Responses API stand-in: launches that end on their own', () => {
  const { env } = useTimeSkippingServer();

  test(
    "the shipped profile writes its declared output; the profile's model is recorded, codex reporting none, and its usage",
    async () => {
      const run = await probe(env(), 'codex', [reply.write('probe.md', 'probe ok\n'), reply.text('Done.')]);
      // Two requests: the exec_command call that writes the file, and the closing answer.
      expectWroteProbe(run, standIn(), { model: 'gpt-5.1-codex', modelSource: 'profile', costed: false });
    },
    CONTRACT_TEST_MS,
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
      expectEnded(await probe(env(), 'codex', [limit()]), 'usage-limit', 1);
    },
    CONTRACT_TEST_MS,
  );
});

// A server of their own: the quota gates the usage limits above closed keep timers and activities
// on their server that would hold back its time skipping (and with it the relaunch rule's waits).
describe('codex against the Responses API stand-in: relaunches', () => {
  const { env } = useTimeSkippingServer();

  test(
    'a 500 is relaunched by the relaunch rule and ends as launch-failed after the third try',
    async () => {
      const run = await probe(env(), 'codex', [reply.serverError()]);
      expectEnded(run, 'launch-failed', 3);
      expect(run.result.outcome).toMatchObject({ exitCode: 1 });
      // The relaunch rule decides, not the CLI: a few requests per try at most.
      expect(standIn().stats().agentRequests).toBeLessThanOrEqual(3 * 4);
    },
    CONTRACT_TEST_MS,
  );

  test(
    'codex pointed at a closed port fails within a bounded time: launch-failed after three tries, not a timed-out launch',
    async () => {
      // A timed-out try would end the probe at once as `timed-out` (it spends an attempt, it is not relaunched).
      // The profile's bound on an unreachable endpoint (60 s by default) is shortened to keep the test short.
      const closed = `http://127.0.0.1:${await freePort()}`;
      expectEnded(await probe(env(), 'codex', [], { url: closed, overrides: { 'unreachable-timeout': '3s' } }), 'launch-failed', 3);
      expect(standIn().stats().requests).toBe(0);
    },
    CONTRACT_TEST_MS,
  );
});
