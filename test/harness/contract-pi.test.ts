// Contract: the pinned pi CLI (its anthropic provider), run by the real launch activity (the probe
// workflow on a Temporal test server) against a local stand-in of the Anthropic Messages API.
import { describeContract, reply } from '../helpers/model-apis/index.js';

describeContract({
  harness: 'pi',
  api: 'anthropic',
  profiles: ['pi'],
  recorded: { model: 'claude-sonnet-4-5', modelSource: 'harness', costed: true },
  // The launch turns pi's own retries off (they sleep a whole retry-after), so a limit surfaces at once.
  limitRequests: 4,
  // pi ends a failed request with exit 0: the launch reads it as failed, not as an incomplete output.
  relaunched: [
    ['a 500', () => reply.serverError()],
    ['dropped connections', () => reply.drop()],
  ],
  exitCode: 0,
});
