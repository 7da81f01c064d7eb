// Prompt caching on the model-API route: the stand-ins' cache accounting (breakpoints, lifetimes, each
// model's minimum), what the executors send for it (cache-ttl, prompt_cache_key), how its tokens are
// priced, and the early warning the limit headers give. Real launch activity, local stand-ins.
import { launchCost, priceOf } from '../../src/harness/prices.js';
import { minimumCacheableTokens } from '../../src/harness/prompt-cache.js';
import { apiReviewLaunch, reply, useStandIns, type ReviewInputs, type StandIn } from '../helpers/model-apis/index.js';

const start = useStandIns();

const KEY_ENV = 'COMMONPLACE_TEST_CACHE_KEY';
/** About `tokens` tokens of text at the stand-ins' four bytes a token. */
const text = (tokens: number, seed: string) => `${seed}\n${'word '.repeat(Math.ceil((tokens * 4) / 5))}`;
const pair = (criterionTokens: number, note: string): ReviewInputs => ({
  note: { path: `kb/notes/${note}.md`, text: `# ${note}\n\nA short note.\n` },
  criteria: [{ id: 'sentence/long-criterion', path: 'kb/instructions/review-gates/sentence/long-criterion.md', text: text(criterionTokens, 'criterion') }],
});

const messages = (standIn: StandIn, body: Record<string, unknown>) =>
  fetch(`${standIn.url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then(
    async (response) => ((await response.json()) as { usage: Record<string, number> & { cache_creation?: Record<string, number> } }).usage,
  );
const block = (tokens: number, seed: string, ttl?: '5m' | '1h') => ({
  type: 'text',
  text: text(tokens, seed),
  ...(ttl && { cache_control: { type: 'ephemeral', ttl } }),
});
const request = (model: string, system: unknown[]) => ({
  model,
  max_tokens: 100,
  tools: [{ name: 'record_review', input_schema: { type: 'object' } }],
  system,
  messages: [{ role: 'user', content: 'Criteria, in order: a. Verdicts allowed: pass.' }],
});

describe("the Messages stand-in's prompt cache", () => {
  test('with two breakpoints the longest cached prefix is read and only the stretch after it written', async () => {
    const standIn = await start('anthropic', reply.review('pass'));
    standIn.cache.minimumTokens = 100;
    const first = await messages(standIn, request('claude-sonnet-4-5', [block(300, 'shared', '5m'), block(300, 'one', '5m')]));
    expect(first.cache_read_input_tokens).toBe(0);
    const second = await messages(standIn, request('claude-sonnet-4-5', [block(300, 'shared', '5m'), block(300, 'two', '5m')]));
    const sharedPrefix = first.cache_creation_input_tokens! - second.cache_creation_input_tokens!;
    expect(second.cache_read_input_tokens).toBe(sharedPrefix);
    expect(second.cache_read_input_tokens).toBeGreaterThan(300);
    expect(second.cache_creation_input_tokens).toBeGreaterThanOrEqual(300);
    expect(second.cache_creation_input_tokens).toBeLessThan(320);
  });

  test('a conversation whose breakpoint moves to its newest message reads the prefix the turn before wrote (the API looks back over earlier block boundaries)', async () => {
    const standIn = await start('anthropic', reply.text('ok'));
    standIn.cache.minimumTokens = 100;
    standIn.cache.countAll = true;
    const turn = (count: number) => ({
      model: 'claude-sonnet-4-5',
      max_tokens: 100,
      tools: [{ name: 'Read', input_schema: { type: 'object' } }],
      system: [block(300, 'system', '5m')],
      messages: Array.from({ length: count }, (_, index) => ({
        role: index % 2 === 0 ? 'user' : 'assistant',
        content: [{ ...block(200, `turn ${index}`), ...(index === count - 1 && { cache_control: { type: 'ephemeral' } }) }],
      })),
    });
    const first = await messages(standIn, turn(1));
    const second = await messages(standIn, turn(3));
    expect(first.cache_read_input_tokens).toBe(0);
    expect(second.cache_read_input_tokens).toBe(first.cache_creation_input_tokens);
    expect(second.cache_creation_input_tokens).toBeGreaterThan(400);
  });

  test('a 5-minute entry expires five minutes after its last use; an hour-long one is still read, and its writes are counted as 1h', async () => {
    const standIn = await start('anthropic', reply.review('pass'));
    standIn.cache.minimumTokens = 100;
    let now = 1_000_000;
    standIn.cache.now = () => now;
    const short = request('claude-sonnet-4-5', [block(300, 'short-lived', '5m')]);
    const long = request('claude-sonnet-4-5', [block(300, 'long-lived', '1h')]);
    const written = await messages(standIn, long);
    expect(written.cache_creation).toEqual({ ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: written.cache_creation_input_tokens });
    expect((await messages(standIn, short)).cache_creation).toEqual({ ephemeral_5m_input_tokens: expect.any(Number), ephemeral_1h_input_tokens: 0 });
    now += 4 * 60_000;
    expect((await messages(standIn, short)).cache_read_input_tokens).toBeGreaterThan(0); // read: its lifetime starts again
    now += 5 * 60_000 + 1;
    expect((await messages(standIn, short)).cache_read_input_tokens).toBe(0);
    expect((await messages(standIn, long)).cache_read_input_tokens).toBe(written.cache_creation_input_tokens);
  });

  test('each model caches from its own minimum: a 2,000-token prefix is cached on Sonnet 4.5 and not on Haiku 4.5', async () => {
    const standIn = await start('anthropic', reply.review('pass'));
    expect([
      minimumCacheableTokens('anthropic', 'claude-sonnet-4-5'),
      minimumCacheableTokens('anthropic', 'claude-haiku-4-5-20251001'),
      minimumCacheableTokens('openai', 'gpt-5-mini'),
    ]).toEqual([1024, 4096, 1024]);
    for (const [model, cached] of [
      ['claude-sonnet-4-5', true],
      ['claude-haiku-4-5', false],
    ] as const) {
      await messages(standIn, request(model, [block(2000, 'mid-sized', '5m')]));
      const again = await messages(standIn, request(model, [block(2000, 'mid-sized', '5m')]));
      expect([model, again.cache_read_input_tokens! > 0]).toEqual([model, cached]);
    }
  });
});

describe("the executors' caching", () => {
  test("an anthropic profile's cache-ttl: 1h marks the breakpoint 1h, and its writes are priced at twice the input price, reads at a tenth", async () => {
    const standIn = await start('anthropic', reply.review('pass'));
    const options = { model: 'claude-sonnet-4-5', keyEnv: KEY_ENV, cacheTtl: '1h' as const };
    const first = await apiReviewLaunch(standIn, options, pair(1500, 'first'));
    const second = await apiReviewLaunch(standIn, options, pair(1500, 'second'));
    const system = standIn.requests.find((request) => !request.side)!.json!.system as { cache_control?: unknown }[];
    expect(system[1]!.cache_control).toEqual({ type: 'ephemeral', ttl: '1h' });
    const usage = first.usage!;
    expect(usage.cacheWriteTokens).toBeGreaterThan(1500);
    expect(usage.cacheWrite1hTokens).toBe(usage.cacheWriteTokens);
    const price = priceOf('claude-sonnet-4-5')!;
    expect(first.costUsd).toBeCloseTo((usage.inputTokens * 3 + usage.outputTokens * 15 + usage.cacheWriteTokens! * 6) / 1e6, 10);
    expect(second.usage).toMatchObject({ cacheReadTokens: usage.cacheWriteTokens, cacheWriteTokens: 0 });
    expect(second.costUsd).toBeCloseTo(
      (second.usage!.inputTokens * price.input + second.usage!.outputTokens * price.output + usage.cacheWriteTokens! * 0.3) / 1e6,
      10,
    );
  });

  test("without cache-ttl the breakpoint takes the API's 5-minute default, priced at 1.25× input", async () => {
    const standIn = await start('anthropic', reply.review('pass'));
    const result = await apiReviewLaunch(standIn, { model: 'claude-sonnet-4-5', keyEnv: KEY_ENV }, pair(1500, 'only'));
    const system = standIn.requests.find((request) => !request.side)!.json!.system as { cache_control?: unknown }[];
    expect(system[1]!.cache_control).toEqual({ type: 'ephemeral' });
    const usage = result.usage!;
    expect(usage.cacheWrite1hTokens ?? 0).toBe(0);
    expect(launchCost({ model: 'claude-sonnet-4-5', usage, costUsd: null }).costUsd).toBeCloseTo(
      (usage.inputTokens * 3 + usage.outputTokens * 15 + usage.cacheWriteTokens! * 3.75) / 1e6,
      10,
    );
  });

  test('OpenAI requests carry one prompt_cache_key per shared prefix, and a repeated prefix comes back as cached_tokens priced at the cached rate', async () => {
    const standIn = await start('openai', reply.review('pass'));
    const options = { model: 'gpt-5-mini', keyEnv: KEY_ENV };
    await apiReviewLaunch(standIn, options, pair(1500, 'first'));
    const second = await apiReviewLaunch(standIn, options, pair(1500, 'second'));
    const other = pair(1500, 'third');
    other.criteria[0]!.text = text(1500, 'another criterion');
    await apiReviewLaunch(standIn, options, other);
    const keys = standIn.requests.filter((request) => !request.side).map((request) => request.json!.prompt_cache_key);
    expect(keys[0]).toBe(keys[1]);
    expect(keys[2]).not.toBe(keys[0]);
    const usage = second.usage!;
    expect(usage.cacheReadTokens).toBeGreaterThan(1500);
    expect(second.costUsd).toBeCloseTo(
      ((usage.inputTokens - usage.cacheReadTokens!) * 0.25 + usage.cacheReadTokens! * 0.025 + usage.outputTokens * 2) / 1e6,
      10,
    );
  });
});

describe("the limit headers' early warning", () => {
  const reset = new Date(Date.now() + 60_000).toISOString();
  test.each([
    [
      'anthropic',
      'claude-haiku-4-5',
      {
        'anthropic-ratelimit-tokens-limit': '100000',
        'anthropic-ratelimit-tokens-remaining': '4000',
        'anthropic-ratelimit-tokens-reset': reset,
        'anthropic-ratelimit-requests-limit': '50',
        'anthropic-ratelimit-requests-remaining': '40',
      },
      /^tokens \(4000 of 100000 left\)$/,
    ],
    [
      'openai',
      'gpt-5-mini',
      {
        'x-ratelimit-limit-requests': '500',
        'x-ratelimit-remaining-requests': '20',
        'x-ratelimit-reset-requests': '1m0s',
        'x-ratelimit-limit-tokens': '200000',
        'x-ratelimit-remaining-tokens': '150000',
      },
      /^requests \(20 of 500 left\)$/,
    ],
  ] as const)(
    'an answer from %s whose headers leave under a tenth of a window carries a rate-limit warning naming it and its reset',
    async (api, model, headers, type) => {
      const standIn = await start(api, reply.review('pass', [], { headers }));
      const asked = Date.now();
      const result = await apiReviewLaunch(standIn, { model, keyEnv: KEY_ENV }, pair(200, 'warned'));
      expect(result.rateLimitWarning?.type).toMatch(type);
      // Anthropic's header names the reset; OpenAI's a minute from its answer.
      const expected = api === 'anthropic' ? Date.parse(reset) : asked + 60_000;
      expect(Math.abs(Date.parse(result.rateLimitWarning!.resetsAt!) - expected)).toBeLessThan(5000);
    },
  );

  test('an answer whose headers leave more than a tenth of every window carries no warning', async () => {
    const standIn = await start(
      'anthropic',
      reply.review('pass', [], { headers: { 'anthropic-ratelimit-tokens-limit': '100000', 'anthropic-ratelimit-tokens-remaining': '11000' } }),
    );
    const result = await apiReviewLaunch(standIn, { model: 'claude-haiku-4-5', keyEnv: KEY_ENV }, pair(200, 'plenty'));
    expect(result.rateLimitWarning).toBeUndefined();
  });
});

describe("a note-first pair's tools", () => {
  // Two pairs of one note, asked note first: the note's tools (one per criterion), the instruction and the note are the prefix.
  const noteTools = [
    { id: 'sentence/first-gate', report: false },
    { id: 'sentence/second-gate', report: false },
  ];
  const notePair = (criterion: string): ReviewInputs => ({
    note: { path: 'kb/notes/long.md', text: text(1200, '# A long note') },
    criteria: [{ id: criterion, path: `kb/instructions/review-gates/${criterion}.md`, text: `The ${criterion} test.` }],
    cachePrefix: 'note',
    noteTools,
  });
  const forced = (standIn: StandIn, index: number) => (standIn.requests[index]!.json!.tool_choice as { name: string }).name;

  test('two pairs of one note force different tools and the second reads the tools, instruction and note the first wrote', async () => {
    // The stand-in fills each forced tool's schema literally: both answers are accepted.
    const standIn = await start('anthropic', reply.literalReview());
    const first = await apiReviewLaunch(standIn, { model: 'claude-sonnet-4-5', keyEnv: KEY_ENV }, notePair('sentence/first-gate'));
    const second = await apiReviewLaunch(standIn, { model: 'claude-sonnet-4-5', keyEnv: KEY_ENV }, notePair('sentence/second-gate'));
    const [one, two] = [standIn.requests[0]!.json!, standIn.requests[1]!.json!];
    expect(JSON.stringify(one.tools)).toBe(JSON.stringify(two.tools));
    expect((one.tools as unknown[]).length).toBe(2);
    expect(forced(standIn, 0)).not.toBe(forced(standIn, 1));
    expect(first.usage!.cacheReadTokens).toBe(0);
    expect(first.usage!.cacheWriteTokens).toBeGreaterThanOrEqual(minimumCacheableTokens('anthropic', 'claude-sonnet-4-5')!);
    // The whole prefix (tools → system through the breakpoint) is read; only the unit's message is input.
    expect(second.usage!.cacheReadTokens).toBe(first.usage!.cacheWriteTokens);
    expect(second.usage!.cacheWriteTokens).toBe(0);
    expect(second.usage!.inputTokens).toBeLessThan(100);
  });

  test("an answer through another criterion's tool is refused as malformed, and the failed try carries the tokens the provider billed", async () => {
    const standIn = await start('anthropic', reply.otherToolReview());
    const failure = (await apiReviewLaunch(standIn, { model: 'claude-sonnet-4-5', keyEnv: KEY_ENV }, notePair('sentence/first-gate')).catch(
      (error: unknown) => error,
    )) as {
      type?: string;
      message: string;
      details?: { billed?: { usage: { inputTokens: number; outputTokens: number; cacheWriteTokens: number } | null; costUsd: number | null }[] }[];
    };
    expect(failure.type).toBe('launch-exit');
    expect(failure.message).toMatch(
      /malformed structured answer: it answers through review_sentence_second-gate_\w+ \(criterion sentence\/second-gate\), not review_sentence_first-gate/,
    );
    const counted = standIn.requests[0]!.usage!;
    const billed = failure.details![0]!.billed![0]!;
    expect(billed.usage).toMatchObject({ inputTokens: counted.input, outputTokens: counted.output, cacheWriteTokens: counted.cacheWrite });
    expect(billed.costUsd).toBeGreaterThan(0);
  });

  test('the stand-in keeps a tool_choice change out of the tools and system cache, but not out of a breakpoint in the messages (as the API documents)', async () => {
    const standIn = await start('anthropic', reply.review('pass'));
    standIn.cache.minimumTokens = 100;
    const body = (tool: string) => ({
      model: 'claude-sonnet-4-5',
      max_tokens: 100,
      tools: [
        { name: 'a', input_schema: { type: 'object' } },
        { name: 'b', input_schema: { type: 'object' } },
      ],
      tool_choice: { type: 'tool', name: tool },
      system: [block(300, 'system', '5m')],
      messages: [{ role: 'user', content: [{ type: 'text', text: text(300, 'message'), cache_control: { type: 'ephemeral' } }] }],
    });
    const first = await messages(standIn, body('a'));
    const same = await messages(standIn, body('a'));
    const other = await messages(standIn, body('b'));
    expect(same.cache_read_input_tokens).toBe(first.cache_creation_input_tokens);
    // Forcing another tool reads tools and system, and writes the message's stretch again.
    expect(other.cache_read_input_tokens).toBeGreaterThan(300);
    expect(other.cache_read_input_tokens).toBeLessThan(first.cache_creation_input_tokens!);
    expect(other.cache_creation_input_tokens).toBe(first.cache_creation_input_tokens! - other.cache_read_input_tokens!);
  });
});

test("the request a provider batch sends is the live one: a cache-ttl 1h profile's breakpoint carries its ttl", async () => {
  const { messageParams } = await import('../../src/harness/executors/anthropic.js');
  const { parseProfiles } = await import('../../src/harness/profiles.js');
  const profiles = parseProfiles({ profiles: { hour: { harness: 'anthropic', model: 'claude-sonnet-4-5', 'cache-ttl': '1h' } } }, 'test');
  const request = {
    grouping: 'pair' as const,
    note: 'kb/notes/a.md',
    noteText: 'A note.\n',
    criteria: [{ id: 'frontmatter/title', text: 'The title is a claim.' }],
    output: 'review.md',
    outcomes: ['pass', 'warn', 'fail'],
    refusals: [],
  };
  const params = messageParams(profiles.get('hour')!, request);
  const system = params.system as { text: string; cache_control?: { type: string; ttl?: string } }[];
  expect(system.at(-1)?.cache_control).toEqual({ type: 'ephemeral', ttl: '1h' });
});
