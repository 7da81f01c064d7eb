// Contract: the pinned codex CLI, run by the real launch activity (the probe workflow on a Temporal
// test server) against a local stand-in of the OpenAI Responses API. See docs/harnesses.md.
import { CONTRACT_TEST_MS, describeContract, expectEnded, reply } from '../helpers/model-apis/index.js';
import { freePort } from '../helpers/ports.js';

const { standIn, probe } = describeContract({
  harness: 'codex',
  api: 'openai',
  profiles: ['codex'],
  // Two requests: the exec_command call that writes the file, and the closing answer.
  recorded: { model: 'gpt-5.1-codex', modelSource: 'profile', costed: false },
  relaunched: [['a 500', () => reply.serverError()]],
  exitCode: 1,
});

test(
  'codex pointed at a closed port fails within a bounded time: launch-failed after three tries, not a timed-out launch',
  async () => {
    // A timed-out try would end the probe at once as `timed-out` (it spends an attempt, it is not relaunched).
    // The profile's bound on an unreachable endpoint (60 s by default) is shortened to keep the test short.
    const closed = `http://127.0.0.1:${await freePort()}`;
    expectEnded(await probe('codex', [], { url: closed, overrides: { 'unreachable-timeout': '3s' } }), 'launch-failed', 3);
    expect(standIn().stats().requests).toBe(0);
  },
  CONTRACT_TEST_MS,
);
