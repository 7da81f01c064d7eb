// The OpenAI Responses API as codex 0.171.0 calls it: POST /v1/responses (SSE), after a WebSocket attempt.
import { createHash } from 'node:crypto';
import { allText, defaultUsage, errorAnswer, minimumOf, requestedCriteria, reviewAnswer, tokensOf, type PromptCache, type Reply } from './replies.js';
import { shellQuote, sse, toolNames, type Json } from './dialect.js';
import type { Answer, ApiDialect, ParsedRequest } from './stand-in.js';

/** The function call that runs a shell command with whichever tool codex offered (`exec_command` in 0.171.0). */
function shellCall(body: Json, command: string): { name: string; arguments: Json } | undefined {
  const tools = toolNames(body);
  if (tools.includes('exec_command')) return { name: 'exec_command', arguments: { cmd: command } };
  if (tools.includes('shell')) return { name: 'shell', arguments: { command: ['bash', '-lc', command] } };
  return undefined;
}

/** The function call that writes a file: a shell command, or `apply_patch` when that is all codex offered. */
function writeCall(body: Json, path: string, content: string): { name: string; arguments: Json } {
  const tools = toolNames(body);
  const command = `printf %s ${shellQuote(content)} > ${shellQuote(path)}`;
  const shell = shellCall(body, command);
  if (shell) return shell;
  if (tools.includes('apply_patch')) {
    const lines = content
      .replace(/\n$/, '')
      .split('\n')
      .map((line) => `+${line}`);
    return { name: 'apply_patch', arguments: { input: ['*** Begin Patch', `*** Add File: ${path}`, ...lines, '*** End Patch', ''].join('\n') } };
  }
  throw new Error(`the request offers no tool that writes a file (tools: ${tools.join(', ') || 'none'})`);
}

function errorBody(reply: Extract<Reply, { kind: 'error' }>): Json {
  if (reply.error === 'usage-limit') {
    return {
      error: {
        type: 'usage_limit_reached',
        message: reply.message ?? 'The usage limit has been reached',
        plan_type: 'plus',
        ...(reply.resetsAt !== undefined && { resets_at: reply.resetsAt }),
      },
    };
  }
  return {
    error: {
      type: reply.error === 'overloaded' ? 'server_is_overloaded' : 'server_error',
      message: reply.message ?? 'The server had an error while processing your request.',
    },
  };
}

/**
 * A structured answer (`text.format` json_schema), non-streaming, with OpenAI's automatic caching:
 * the prefix (instructions and the first input message) is cached from the cache's minimum length,
 * keyed by `prompt_cache_key`; `input_tokens` include the cached ones.
 */
function answerStructured(body: Json, reply: Extract<Reply, { kind: 'review' }>, n: number, headers: Record<string, string>, cache: PromptCache): Answer {
  const input = Array.isArray(body.input) ? (body.input as Json[]) : [];
  const prefixText = [String(body.instructions ?? ''), allText(input[0]?.content)];
  const total = tokensOf(String(body.instructions ?? '')) + input.reduce((sum, item) => sum + tokensOf(allText(item.content)), 0);
  const prefixTokens = prefixText.reduce((sum, text) => sum + tokensOf(text), 0);
  let cached = 0;
  if (prefixTokens >= minimumOf(cache, 'openai', body.model)) {
    const key = `openai ${String(body.model)} ${String(body.prompt_cache_key ?? '')} ${createHash('sha256').update(JSON.stringify(prefixText)).digest('hex')}`;
    if (cache.seen.has(key)) cached = prefixTokens;
    cache.seen.add(key);
  }
  const format = ((body.text ?? {}) as Json).format as Json | undefined;
  const text = JSON.stringify(reviewAnswer(reply, requestedCriteria(allText(input)), format?.schema));
  const outputTokens = reply.usage?.outputTokens ?? tokensOf(text);
  const item = { type: 'message', id: `msg_standin_${n}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] };
  const response = {
    id: `resp_standin_${n}`,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    model: typeof body.model === 'string' ? body.model : 'gpt-standin',
    status: 'completed',
    output: [item],
    usage: {
      input_tokens: total,
      input_tokens_details: { cached_tokens: cached },
      output_tokens: outputTokens,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: total + outputTokens,
    },
  };
  return {
    status: 200,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(response),
    usage: { input: total - cached, cacheRead: cached, cacheWrite: 0, output: outputTokens },
  };
}

function answerResponses(request: ParsedRequest, reply: Exclude<Reply, { kind: 'drop' }>, n: number, cache?: PromptCache): Answer {
  const body = request.json ?? {};
  const headers = { 'x-request-id': `req_standin_${n}`, ...reply.headers };
  if (reply.kind === 'error') return errorAnswer(reply, headers, errorBody(reply));
  if (reply.kind === 'review') {
    if (!cache) throw new Error("a review reply needs the stand-in's cache");
    return answerStructured(body, reply, n, headers, cache);
  }
  const usage = reply.usage ?? defaultUsage;
  const model = typeof body.model === 'string' ? body.model : 'gpt-standin';
  const id = `resp_standin_${n}`;
  let item: Json;
  if (reply.kind === 'write' || reply.kind === 'read') {
    const call = reply.kind === 'write' ? writeCall(body, reply.path, reply.content) : shellCall(body, `cat ${shellQuote(reply.path)}`);
    if (!call) throw new Error(`the request offers no tool that runs a command (tools: ${toolNames(body).join(', ') || 'none'})`);
    item = {
      type: 'function_call',
      id: `fc_standin_${n}`,
      call_id: `call_standin_${n}`,
      name: call.name,
      arguments: JSON.stringify(call.arguments),
      status: 'completed',
    };
  } else {
    item = {
      type: 'message',
      id: `msg_standin_${n}`,
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: reply.text, annotations: [] }],
    };
  }
  const apiUsage = {
    input_tokens: usage.inputTokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: usage.outputTokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: usage.inputTokens + usage.outputTokens,
  };
  const response = { id, object: 'response', created_at: Math.floor(Date.now() / 1000), model };
  const events: Json[] = [
    { type: 'response.created', response: { ...response, status: 'in_progress', output: [] } },
    {
      type: 'response.output_item.added',
      output_index: 0,
      item: { ...item, status: 'in_progress', ...(item.type === 'function_call' ? { arguments: '' } : { content: [] }) },
    },
  ];
  if (reply.kind === 'text') events.push({ type: 'response.output_text.delta', item_id: item.id, output_index: 0, content_index: 0, delta: reply.text });
  events.push({ type: 'response.output_item.done', output_index: 0, item });
  events.push({ type: 'response.completed', response: { ...response, status: 'completed', output: [item], usage: apiUsage } });
  return { status: 200, headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...headers }, body: sse(events) };
}

export const openaiDialect: ApiDialect = {
  name: 'openai',
  route(request, cache) {
    const path = request.path;
    if (request.method === 'POST' && path === '/v1/responses') return { side: false, answer: (n, reply) => answerResponses(request, reply, n, cache) };
    // codex first asks for a WebSocket on the same path; a 426 makes it fall back to HTTPS at once
    // (any other refusal is retried five times first).
    if (request.method === 'GET' && path === '/v1/responses')
      return { side: true, answer: () => ({ status: 426, headers: { 'content-type': 'text/plain' }, body: 'use HTTPS' }) };
    if (request.method === 'GET' && path === '/v1/models') {
      const data = ['gpt-5.1-codex', 'gpt-5.1'].map((id) => ({ id, object: 'model', created: 1_760_000_000, owned_by: 'standin' }));
      return { side: true, answer: () => ({ status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ object: 'list', data }) }) };
    }
    return {
      side: true,
      answer: () => ({
        status: 404,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ error: { type: 'not_found', message: `no ${path}` } }),
      }),
    };
  },
};
