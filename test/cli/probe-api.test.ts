// `commonplace probe` of a model-API profile: one small structured request through the real executor
// on the file's CLI worker, against the local stand-ins of the Anthropic and OpenAI APIs, its tokens
// and cost printed as the stand-in counted and the price table prices them.
import { launchCost } from '../../src/harness/prices.js';
import { runCli } from '../helpers/cli.js';
import { scratch } from '../helpers/fake.js';
import { reply, standInKey, standInProfile, useStandIns, writeProfilesFile } from '../helpers/model-apis/index.js';
import { useDevServerWithCliWorker } from '../helpers/servers.js';

// The file's CLI worker reads the key from its environment, inherited from this process when it starts.
const KEY_ENV = standInKey('COMMONPLACE_TEST_PROBE_API_KEY');
const { address } = useDevServerWithCliWorker();
const startStandIn = useStandIns();

const cases = [
  { api: 'anthropic', profile: 'anthropic-sonnet', model: 'claude-sonnet-4-5' },
  { api: 'openai', profile: 'openai-mini', model: 'gpt-5-mini' },
] as const;

describe.each(cases)('a probe of the $profile profile at the $api stand-in', ({ api, profile, model }) => {
  test('completes with one structured request, and prints its tokens and its cost at the price table', async () => {
    const standIn = await startStandIn(api, reply.review('pass'));
    const dir = await scratch();
    // The shipped profile as it is, pointed at the stand-in and at the test's key variable.
    const profiles = await writeProfilesFile(dir, { [profile]: standInProfile(standIn, model, KEY_ENV, { 'max-output-tokens': 2048 }) });
    const probe = await runCli(['probe', '--profile', profile, '--profiles', profiles], { env: { TEMPORAL_ADDRESS: address() } });
    expect({ exitCode: probe.exitCode, stderr: probe.stderr }).toEqual({ exitCode: 0, stderr: expect.not.stringMatching(/Error|at /) });
    expect(probe.stdout).toMatch(new RegExp(`^probe probe/${profile}/\\S+: profile ${profile} \\(${api}\\) — completed$`, 'm'));

    const asked = standIn.requests.filter((request) => !request.side);
    expect(asked).toHaveLength(1);
    const body = asked[0]!.json!;
    // Structured: Anthropic's answer forced through the record_review tool, OpenAI's through a strict JSON schema.
    if (api === 'anthropic') expect(body.tool_choice).toEqual({ type: 'tool', name: 'record_review' });
    else expect(body.text).toMatchObject({ format: { type: 'json_schema', name: 'record_review', strict: true } });

    const usage = asked[0]!.usage!;
    const inputTokens = api === 'openai' ? usage.input + usage.cacheRead : usage.input;
    const cost = launchCost({
      model,
      usage: { inputTokens, outputTokens: usage.output, cacheReadTokens: usage.cacheRead, cacheWriteTokens: usage.cacheWrite },
      costUsd: null,
    }).costUsd!;
    expect(cost).toBeGreaterThan(0);
    expect(probe.stdout).toContain(`  tokens ${inputTokens} in / ${usage.output} out, cost $${cost.toFixed(4)}`);
    expect(probe.stdout).toContain(`  model ${model}`);
    expect(probe.stdout).toMatch(/^ {2}output review\.md: \d+ bytes, sha256 [0-9a-f]{64}$/m);
  });
});
