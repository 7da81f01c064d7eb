// The API stand-ins the contract tests run the real CLIs against (test/helpers/model-apis).
import { reply, useStandIns, type StandIn } from '../helpers/model-apis/index.js';

const events = (text: string) =>
  text
    .split('\n\n')
    .filter(Boolean)
    .map(
      (block) =>
        JSON.parse(
          block
            .split('\n')
            .find((line) => line.startsWith('data: '))!
            .slice(6),
        ) as Record<string, unknown>,
    );

const start = useStandIns();

const messages = (standIn: StandIn, body: Record<string, unknown>) =>
  fetch(`${standIn.url}/v1/messages?beta=true`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const claudeTurn = {
  model: 'claude-sonnet-5',
  stream: true,
  system: 'Primary working directory: /launch/dir\n',
  tools: [{ name: 'Write' }, { name: 'Read' }],
  messages: [],
};

describe('the Messages API stand-in', () => {
  test('answers agent turns in script order, repeating the last reply, and counts requests and body bytes', async () => {
    const standIn = await start('anthropic');
    standIn.script(reply.write('out.md', 'text\n'), reply.text('Done.'));
    const first = events(await (await messages(standIn, claudeTurn)).text());
    expect(first.map((event) => event.type)).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(first[1]).toMatchObject({ content_block: { type: 'tool_use', name: 'Write' } });
    expect(JSON.parse((first[2]?.delta as { partial_json: string }).partial_json)).toEqual({ file_path: '/launch/dir/out.md', content: 'text\n' });
    for (let i = 0; i < 2; i++) {
      const later = events(await (await messages(standIn, claudeTurn)).text());
      expect(later[2]).toMatchObject({ delta: { type: 'text_delta', text: 'Done.' } });
    }
    expect(standIn.stats()).toEqual({
      requests: 3,
      bytes: 3 * JSON.stringify(claudeTurn).length,
      agentRequests: 3,
      agentBytes: 3 * JSON.stringify(claudeTurn).length,
    });
  });

  test("answers claude's side calls (a title asked without tools, the HEAD check) without spending a scripted reply", async () => {
    const standIn = await start('anthropic');
    standIn.script(reply.usageLimit());
    expect((await fetch(standIn.url, { method: 'HEAD' })).status).toBe(200);
    const title = await messages(standIn, {
      model: 'claude-sonnet-5',
      stream: false,
      tools: [],
      output_config: { format: { type: 'json_schema' } },
      messages: [],
    });
    expect(((await title.json()) as { content: { text: string }[] }).content[0]?.text).toBe('{"title":"Probe"}');
    const limited = await messages(standIn, claudeTurn);
    expect(limited.status).toBe(429);
    expect(await limited.json()).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
    expect(standIn.requests.map((request) => [request.side, request.answered])).toEqual([
      [true, 'side'],
      [true, 'side'],
      [false, 'error'],
    ]);
  });

  test('a 429 carries retry-after and rate-limit headers when scripted; a drop closes the connection unanswered', async () => {
    const standIn = await start('anthropic');
    standIn.script(reply.usageLimit({ retryAfterSeconds: 3600, headers: { 'anthropic-ratelimit-unified-status': 'rejected' } }), reply.drop());
    const limited = await messages(standIn, claudeTurn);
    expect([limited.headers.get('retry-after'), limited.headers.get('anthropic-ratelimit-unified-status')]).toEqual(['3600', 'rejected']);
    await expect(messages(standIn, claudeTurn)).rejects.toThrow();
    expect(standIn.stats().agentRequests).toBe(2);
  });
});

describe('the Responses API stand-in', () => {
  test("refuses codex's WebSocket with 426 and answers a write as an exec_command function call, then a message with usage", async () => {
    const standIn = await start('openai');
    standIn.script(reply.write('out.md', "it's\n"), reply.text('Done.'));
    expect((await fetch(`${standIn.url}/v1/responses`)).status).toBe(426);
    const turn = { model: 'gpt-5.1-codex', stream: true, tools: [{ type: 'function', name: 'exec_command' }], input: [] };
    const post = () => fetch(`${standIn.url}/v1/responses`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(turn) });
    const call = events(await (await post()).text());
    expect(call.map((event) => event.type)).toEqual(['response.created', 'response.output_item.added', 'response.output_item.done', 'response.completed']);
    const item = call[2]?.item as { type: string; name: string; arguments: string };
    expect([item.type, item.name, JSON.parse(item.arguments)]).toEqual(['function_call', 'exec_command', { cmd: `printf %s 'it'\\''s\n' > 'out.md'` }]);
    const answer = events(await (await post()).text());
    expect(answer.at(-1)).toMatchObject({
      type: 'response.completed',
      response: { output: [{ type: 'message', content: [{ type: 'output_text', text: 'Done.' }] }], usage: { input_tokens: 1200 } },
    });
    expect(standIn.stats()).toMatchObject({ requests: 3, agentRequests: 2 });
  });

  test('a usage limit is a 429 usage_limit_reached with resets_at; a server error a 500', async () => {
    const standIn = await start('openai');
    standIn.script(reply.usageLimit({ resetsAt: 1_800_000_000 }), reply.serverError());
    const post = () => fetch(`${standIn.url}/v1/responses`, { method: 'POST', body: JSON.stringify({ tools: [] }) });
    const limited = await post();
    expect([limited.status, await limited.json()]).toEqual([
      429,
      { error: { type: 'usage_limit_reached', message: 'The usage limit has been reached', plan_type: 'plus', resets_at: 1_800_000_000 } },
    ]);
    expect((await post()).status).toBe(500);
  });
});

describe("the stand-ins' prompt cache (structured review requests)", () => {
  const shared = 'x'.repeat(400); // 100 tokens at the stand-ins' four bytes a token
  const unit = 'Criteria, in order: sentence/x. Verdicts allowed: pass, warn, fail.';
  const anthropicRequest = (sharedText: string) => ({
    model: 'claude-haiku-4-5',
    max_tokens: 100,
    tools: [{ name: 'record_review', input_schema: { type: 'object' } }],
    tool_choice: { type: 'tool', name: 'record_review' },
    system: [
      { type: 'text', text: 'instruction' },
      { type: 'text', text: sharedText, cache_control: { type: 'ephemeral' } },
    ],
    messages: [{ role: 'user', content: unit }],
  });
  const usageOf = async (response: Response) => ((await response.json()) as { usage: Record<string, unknown> }).usage;

  test('Messages: a prefix through the breakpoint is written once and read after; one under the minimum is never cached', async () => {
    const standIn = await start('anthropic');
    standIn.script(reply.review('pass'));
    standIn.cache.minimumTokens = 64;
    const first = await usageOf(await messages(standIn, anthropicRequest(shared)));
    const second = await usageOf(await messages(standIn, anthropicRequest(shared)));
    expect(first).toMatchObject({ cache_read_input_tokens: 0 });
    expect(first.cache_creation_input_tokens).toBeGreaterThanOrEqual(100);
    expect(second).toMatchObject({
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: first.cache_creation_input_tokens,
      input_tokens: first.input_tokens,
    });
    const short = await usageOf(await messages(standIn, anthropicRequest('short')));
    const again = await usageOf(await messages(standIn, anthropicRequest('short')));
    expect([short.cache_creation_input_tokens, again.cache_read_input_tokens]).toEqual([0, 0]);
  });

  test('Messages: the forced tool answers one entry per criterion the request names', async () => {
    const standIn = await start('anthropic');
    standIn.script(reply.review('warn', ['Cut the stock phrase.']));
    const body = (await (await messages(standIn, anthropicRequest(shared))).json()) as { content: { type: string; name: string; input: unknown }[] };
    expect(body.content).toEqual([
      {
        type: 'tool_use',
        id: expect.any(String),
        name: 'record_review',
        input: { reviews: [{ criterion: 'sentence/x', verdict: 'warn', findings: ['Cut the stock phrase.'] }] },
      },
    ]);
  });

  test('Responses: a repeated prefix under the same prompt_cache_key reports cached_tokens within input_tokens, as JSON', async () => {
    const standIn = await start('openai');
    standIn.script(reply.review('pass'));
    standIn.cache.minimumTokens = 64;
    const request = {
      model: 'gpt-5-mini',
      instructions: 'instruction',
      input: [
        { role: 'developer', content: shared },
        { role: 'user', content: unit },
      ],
      prompt_cache_key: 'k',
      text: { format: { type: 'json_schema' } },
    };
    const post = () => fetch(`${standIn.url}/v1/responses`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(request) });
    const first = (await (await post()).json()) as {
      usage: { input_tokens: number; input_tokens_details: { cached_tokens: number } };
      output: { content: { text: string }[] }[];
    };
    const second = (await (await post()).json()) as typeof first;
    expect(first.usage.input_tokens_details.cached_tokens).toBe(0);
    expect(second.usage.input_tokens_details.cached_tokens).toBeGreaterThanOrEqual(100);
    expect(second.usage.input_tokens).toBe(first.usage.input_tokens);
    expect(JSON.parse(second.output[0]!.content[0]!.text)).toEqual({ reviews: [{ criterion: 'sentence/x', verdict: 'pass', findings: [] }] });
  });
});
