// The Anthropic Messages API as claude and pi call it: POST /v1/messages (SSE with `stream: true`).
import { createHash } from 'node:crypto';
import { allText, defaultUsage, errorAnswer, minimumOf, requestedCriteria, reviewAnswer, tokensOf, type PromptCache, type Reply } from './replies.js';
import { shellQuote, sse, toolNames, type Json } from './dialect.js';
import type { Answer, ApiDialect, ParsedRequest } from './stand-in.js';

/** claude's Write takes an absolute path: the working directory is in its system prompt (`Primary working directory: …`). */
function workingDirectory(raw: string): string | undefined {
  return /[Ww]orking directory: (\/[^\s"\\]+)/.exec(raw)?.[1];
}

/** The tool call that writes a file with whichever file tool the harness offered. */
function writeCall(body: Json, raw: string, path: string, content: string): { name: string; input: Json } {
  const tools = toolNames(body);
  if (tools.includes('Write')) {
    const cwd = workingDirectory(raw);
    return { name: 'Write', input: { file_path: cwd ? `${cwd}/${path}` : path, content } };
  }
  if (tools.includes('write')) return { name: 'write', input: { path, content } };
  // Under `--bare` claude 2.1.197 offers Read and Edit only; an Edit of an empty old_string creates the file.
  if (tools.includes('Edit')) {
    const cwd = workingDirectory(raw);
    return { name: 'Edit', input: { file_path: cwd ? `${cwd}/${path}` : path, old_string: '', new_string: content } };
  }
  const bash = tools.find((name) => name === 'Bash' || name === 'bash');
  if (bash) return { name: bash, input: { command: `printf %s ${shellQuote(content)} > ${shellQuote(path)}` } };
  throw new Error(`the request offers no tool that writes a file (tools: ${tools.join(', ') || 'none'})`);
}

/** The tool call that reads a file with whichever file tool the harness offered. */
function readCall(body: Json, raw: string, path: string): { name: string; input: Json } {
  const tools = toolNames(body);
  if (tools.includes('Read')) {
    const cwd = workingDirectory(raw);
    return { name: 'Read', input: { file_path: cwd ? `${cwd}/${path}` : path } };
  }
  if (tools.includes('read')) return { name: 'read', input: { path } };
  const bash = tools.find((name) => name === 'Bash' || name === 'bash');
  if (bash) return { name: bash, input: { command: `cat ${shellQuote(path)}` } };
  throw new Error(`the request offers no tool that reads a file (tools: ${tools.join(', ') || 'none'})`);
}

function errorBody(reply: Extract<Reply, { kind: 'error' }>): Json {
  const type = reply.error === 'usage-limit' ? 'rate_limit_error' : reply.error === 'overloaded' ? 'overloaded_error' : 'api_error';
  const message =
    reply.message ??
    (reply.error === 'usage-limit'
      ? "This request would exceed your account's rate limit. Please try again later."
      : reply.error === 'overloaded'
        ? 'Overloaded'
        : 'Internal server error');
  return { type: 'error', error: { type, message }, request_id: 'req_standin' };
}

interface AnthropicInputUsage {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  cache_creation: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
}

const TTL_MS = { '5m': 5 * 60_000, '1h': 60 * 60_000 } as const;
/** How many block boundaries before a breakpoint the API looks back for a cached prefix. */
const LOOKBACK_BLOCKS = 20;
type Ttl = keyof typeof TTL_MS;

/** A block's breakpoint: its `cache_control`'s lifetime, or none. */
function breakpointOf(block: Json): Ttl | undefined {
  const control = block.cache_control as Json | undefined;
  if (typeof control !== 'object' || control === null) return undefined;
  return control.ttl === '1h' ? '1h' : '5m';
}

/**
 * Input tokens as the API counts them. The request is read in cache order (tools, system blocks,
 * messages; `tool_choice` keys the messages' part only); each `cache_control` block ends a prefix. The longest prefix still in the cache (same
 * model, not expired), at a breakpoint or at one of the 20 block boundaries before one, is read; the rest through the last breakpoint is written, each stretch at the
 * lifetime of the breakpoint that ends it, when the prefix it ends is at least the model's minimum.
 * A read or a write (re)starts the entry's lifetime. `input_tokens` are what is neither.
 */
function inputUsage(body: Json, cache: PromptCache): AnthropicInputUsage {
  const parts: { text: string; breakpoint: Ttl | undefined }[] = [];
  // A block's cache_control is no part of what is cached: a block reads the same with or without it.
  const content = (block: Json) => JSON.stringify({ ...block, cache_control: undefined });
  if (Array.isArray(body.tools)) for (const tool of body.tools as Json[]) parts.push({ text: content(tool), breakpoint: breakpointOf(tool) });
  const system = body.system;
  if (typeof system === 'string') parts.push({ text: system, breakpoint: undefined });
  else if (Array.isArray(system)) for (const block of system as Json[]) parts.push({ text: String(block.text ?? ''), breakpoint: breakpointOf(block) });
  // A `tool_choice` change invalidates the messages' part of the cache only (Anthropic's prompt-caching docs): it is read
  // into the key from the first message on, so the tools and system prefixes stay shared across forced tools.
  const messagesFrom = parts.length;
  if (Array.isArray(body.messages)) {
    for (const message of body.messages as Json[]) {
      const blocks = message.content;
      if (typeof blocks === 'string') parts.push({ text: blocks, breakpoint: undefined });
      else if (Array.isArray(blocks)) for (const block of blocks as Json[]) parts.push({ text: content(block), breakpoint: breakpointOf(block) });
    }
  }
  const total = parts.reduce((sum, part) => sum + tokensOf(part.text), 0);
  const minimum = minimumOf(cache, 'anthropic', body.model);
  const now = cache.now();
  const hash = createHash('sha256');
  let tokens = 0;
  const boundaries: { key: string; tokens: number }[] = [];
  const ends: { key: string; tokens: number; ttl: Ttl; index: number }[] = [];
  for (const [index, part] of parts.entries()) {
    if (index === messagesFrom) hash.update(`tool_choice ${JSON.stringify(body.tool_choice ?? null)}\0`);
    hash.update(`${part.text}\0`);
    tokens += tokensOf(part.text);
    boundaries.push({ key: `anthropic ${String(body.model)} ${hash.copy().digest('hex')}`, tokens });
    if (part.breakpoint !== undefined && tokens >= minimum) ends.push({ ...boundaries.at(-1)!, ttl: part.breakpoint, index: boundaries.length - 1 });
  }
  // As the API does, each breakpoint also finds an entry written at any of the ~20 block boundaries before it.
  let read = 0;
  const readable = (key: string) => (cache.expiresAt.get(key) ?? 0) > now && (cache.readableAt?.get(key) ?? 0) <= now;
  for (const end of ends) {
    for (let index = end.index; index >= Math.max(0, end.index - LOOKBACK_BLOCKS); index--) {
      const boundary = boundaries[index]!;
      if (readable(boundary.key)) {
        read = Math.max(read, boundary.tokens);
        break;
      }
    }
  }
  const written = { '5m': 0, '1h': 0 };
  let from = read;
  for (const end of ends) {
    if (end.tokens > from) {
      written[end.ttl] += end.tokens - from;
      from = end.tokens;
    }
    if ((cache.expiresAt.get(end.key) ?? 0) <= now && cache.writeDelayMs) (cache.readableAt ??= new Map()).set(end.key, now + cache.writeDelayMs);
    cache.seen.add(end.key);
    cache.expiresAt.set(end.key, Math.max(cache.expiresAt.get(end.key) ?? 0, now + TTL_MS[end.ttl]));
  }
  const write = written['5m'] + written['1h'];
  return {
    input_tokens: total - read - write,
    cache_creation_input_tokens: write,
    cache_read_input_tokens: read,
    cache_creation: { ephemeral_5m_input_tokens: written['5m'], ephemeral_1h_input_tokens: written['1h'] },
  };
}

/** Output tokens of an answer's content block, as the stand-ins count (the text, or the tool call's input). */
const outputTokensOf = (block: Json) => tokensOf(block.type === 'text' ? String(block.text) : JSON.stringify(block.input));

/** Answers one Messages request with a scripted reply. */
function answerMessages(request: ParsedRequest, reply: Exclude<Reply, { kind: 'drop' }>, n: number, cache?: PromptCache): Answer {
  const body = request.json ?? {};
  const headers = { 'request-id': `req_standin_${n}`, ...reply.headers };
  if (reply.kind === 'error') return errorAnswer(reply, headers, errorBody(reply));
  const usage = reply.usage ?? defaultUsage;
  const model = typeof body.model === 'string' ? body.model : 'claude-standin';
  const id = `msg_standin_${n}`;
  let block: Json;
  let stopReason: string;
  if (reply.kind === 'review') {
    // The forced tool (`tool_choice`), or with `otherTool` another of the request's tools, its schema filled literally.
    const choice = body.tool_choice as Json | undefined;
    const forced = choice?.type === 'tool' ? String(choice.name) : (toolNames(body)[0] ?? 'record_review');
    const tools = Array.isArray(body.tools) ? (body.tools as Json[]) : [];
    const other = reply.otherTool ? tools.find((each) => each.name !== forced) : undefined;
    if (reply.otherTool && !other) throw new Error(`the request offers no tool but the forced ${forced}`);
    const name = other ? String(other.name) : forced;
    const tool = tools.find((each) => each.name === name);
    const input = other
      ? reviewAnswer({ ...reply, literal: true }, [], other.input_schema)
      : reviewAnswer(reply, requestedCriteria(allText(body.messages)), tool?.input_schema);
    block = { type: 'tool_use', id: `toolu_standin_${n}`, name, input };
    stopReason = 'tool_use';
  } else if (reply.kind === 'write' || reply.kind === 'read') {
    const call = reply.kind === 'write' ? writeCall(body, request.raw, reply.path, reply.content) : readCall(body, request.raw, reply.path);
    block = { type: 'tool_use', id: `toolu_standin_${n}`, name: call.name, input: call.input };
    stopReason = 'tool_use';
  } else {
    block = { type: 'text', text: reply.text };
    stopReason = 'end_turn';
  }
  const counted = cache !== undefined && (reply.kind === 'review' || cache.countAll === true);
  const apiUsage = counted
    ? { ...inputUsage(body, cache), output_tokens: reply.usage?.outputTokens ?? outputTokensOf(block) }
    : { input_tokens: usage.inputTokens, output_tokens: usage.outputTokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const usageCounted = counted
    ? {
        usage: {
          input: apiUsage.input_tokens,
          cacheRead: apiUsage.cache_read_input_tokens,
          cacheWrite: apiUsage.cache_creation_input_tokens,
          output: apiUsage.output_tokens,
        },
      }
    : {};
  if (body.stream !== true) {
    return {
      status: 200,
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ id, type: 'message', role: 'assistant', model, content: [block], stop_reason: stopReason, stop_sequence: null, usage: apiUsage }),
      ...usageCounted,
    };
  }
  const events: Json[] = [
    {
      type: 'message_start',
      message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { ...apiUsage, output_tokens: 1 } },
    },
  ];
  if (block.type === 'tool_use') {
    events.push({ type: 'content_block_start', index: 0, content_block: { ...block, input: {} } });
    events.push({ type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) } });
  } else {
    events.push({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
    events.push({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: block.text } });
  }
  events.push({ type: 'content_block_stop', index: 0 });
  events.push({ type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: apiUsage.output_tokens } });
  events.push({ type: 'message_stop' });
  return { status: 200, headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...headers }, body: sse(events), ...usageCounted };
}

/** claude's side calls (a session title, asked with `tools: []` and a JSON schema) are answered without touching the script. */
function sideAnswer(request: ParsedRequest, n: number): Answer {
  const body = request.json ?? {};
  const wantsJson = typeof body.output_config === 'object' && body.output_config !== null && 'format' in body.output_config;
  return answerMessages(request, { kind: 'text', text: wantsJson ? '{"title":"Probe"}' : 'OK', usage: { inputTokens: 50, outputTokens: 5 } }, n);
}

export const anthropicDialect: ApiDialect = {
  name: 'anthropic',
  route(request, cache) {
    const path = request.path;
    if (request.method === 'POST' && path === '/v1/messages/count_tokens') {
      return {
        side: true,
        answer: () => ({ status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ input_tokens: Math.ceil(request.bytes / 4) }) }),
      };
    }
    if (request.method === 'POST' && path === '/v1/messages') {
      const tools = toolNames(request.json ?? {});
      if (tools.length === 0) return { side: true, answer: (n) => sideAnswer(request, n) };
      return { side: false, answer: (n, reply) => answerMessages(request, reply, n, cache) };
    }
    if (request.method === 'GET' && path === '/v1/models') {
      const data = ['claude-sonnet-5', 'claude-sonnet-4-5', 'claude-haiku-4-5-20251001'].map((id) => ({
        type: 'model',
        id,
        display_name: id,
        created_at: '2026-01-01T00:00:00Z',
      }));
      return {
        side: true,
        answer: () => ({
          status: 200,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ data, has_more: false, first_id: data[0]?.id, last_id: data.at(-1)?.id }),
        }),
      };
    }
    // claude's connectivity check is a HEAD of the base URL.
    if (request.method === 'HEAD' || (request.method === 'GET' && path === '/')) return { side: true, answer: () => ({ status: 200, headers: {}, body: '' }) };
    return {
      side: true,
      answer: () => ({
        status: 404,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: `no ${path}` } }),
      }),
    };
  },
};
