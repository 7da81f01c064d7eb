// The Anthropic Messages API as claude and pi call it: POST /v1/messages (SSE with `stream: true`).
import { createHash } from 'node:crypto';
import { allText, defaultUsage, errorAnswer, requestedCriteria, reviewAnswer, shellQuote, tokensOf, type PromptCache, type Reply } from './replies.js';
import type { Answer, ApiDialect, ParsedRequest } from './stand-in.js';

type Json = Record<string, unknown>;

const sse = (events: Json[]) => events.map((event) => `event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`).join('');

function toolNames(body: Json): string[] {
  return Array.isArray(body.tools) ? body.tools.map((tool: Json) => String(tool.name)) : [];
}

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
    (reply.error === 'usage-limit' ? "This request would exceed your account's rate limit. Please try again later." : reply.error === 'overloaded' ? 'Overloaded' : 'Internal server error');
  return { type: 'error', error: { type, message }, request_id: 'req_standin' };
}

/**
 * Input tokens as the API counts them: the prefix through the last `cache_control` breakpoint (tools,
 * then system blocks, then messages) is written to the cache the first time and read after, when it
 * is at least the cache's minimum; `input_tokens` are the rest.
 */
function inputUsage(body: Json, cache: PromptCache): { input_tokens: number; cache_creation_input_tokens: number; cache_read_input_tokens: number } {
  const parts: { text: string; breakpoint: boolean }[] = [];
  if (Array.isArray(body.tools)) for (const tool of body.tools as Json[]) parts.push({ text: JSON.stringify(tool), breakpoint: 'cache_control' in tool });
  const system = body.system;
  if (typeof system === 'string') parts.push({ text: system, breakpoint: false });
  else if (Array.isArray(system)) for (const block of system as Json[]) parts.push({ text: String(block.text ?? ''), breakpoint: 'cache_control' in block });
  if (Array.isArray(body.messages)) {
    for (const message of body.messages as Json[]) {
      const content = message.content;
      if (typeof content === 'string') parts.push({ text: content, breakpoint: false });
      else if (Array.isArray(content)) for (const block of content as Json[]) parts.push({ text: JSON.stringify(block), breakpoint: 'cache_control' in block });
    }
  }
  const total = parts.reduce((sum, part) => sum + tokensOf(part.text), 0);
  const last = parts.map((part) => part.breakpoint).lastIndexOf(true);
  if (last < 0) return { input_tokens: total, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const prefix = parts.slice(0, last + 1);
  const prefixTokens = prefix.reduce((sum, part) => sum + tokensOf(part.text), 0);
  if (prefixTokens < cache.minimumTokens) return { input_tokens: total, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const key = `anthropic ${String(body.model)} ${createHash('sha256').update(JSON.stringify(prefix.map((part) => part.text))).digest('hex')}`;
  const read = cache.seen.has(key);
  cache.seen.add(key);
  return { input_tokens: total - prefixTokens, cache_creation_input_tokens: read ? 0 : prefixTokens, cache_read_input_tokens: read ? prefixTokens : 0 };
}

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
    const choice = body.tool_choice as Json | undefined;
    const name = choice?.type === 'tool' ? String(choice.name) : toolNames(body)[0] ?? 'record_review';
    block = { type: 'tool_use', id: `toolu_standin_${n}`, name, input: reviewAnswer(reply, requestedCriteria(allText(body.messages))) };
    stopReason = 'tool_use';
  } else if (reply.kind === 'write' || reply.kind === 'read') {
    const call = reply.kind === 'write' ? writeCall(body, request.raw, reply.path, reply.content) : readCall(body, request.raw, reply.path);
    block = { type: 'tool_use', id: `toolu_standin_${n}`, name: call.name, input: call.input };
    stopReason = 'tool_use';
  } else {
    block = { type: 'text', text: reply.text };
    stopReason = 'end_turn';
  }
  const apiUsage =
    reply.kind === 'review' && cache
      ? { ...inputUsage(body, cache), output_tokens: reply.usage?.outputTokens ?? tokensOf(JSON.stringify(block.input)) }
      : { input_tokens: usage.inputTokens, output_tokens: usage.outputTokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  if (body.stream !== true) {
    return {
      status: 200,
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ id, type: 'message', role: 'assistant', model, content: [block], stop_reason: stopReason, stop_sequence: null, usage: apiUsage }),
    };
  }
  const events: Json[] = [{ type: 'message_start', message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { ...apiUsage, output_tokens: 1 } } }];
  if (block.type === 'tool_use') {
    events.push({ type: 'content_block_start', index: 0, content_block: { ...block, input: {} } });
    events.push({ type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) } });
  } else {
    events.push({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
    events.push({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: block.text } });
  }
  events.push({ type: 'content_block_stop', index: 0 });
  events.push({ type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: usage.outputTokens } });
  events.push({ type: 'message_stop' });
  return { status: 200, headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...headers }, body: sse(events) };
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
      return { side: true, answer: () => ({ status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ input_tokens: Math.ceil(request.bytes / 4) }) }) };
    }
    if (request.method === 'POST' && path === '/v1/messages') {
      const tools = toolNames(request.json ?? {});
      if (tools.length === 0) return { side: true, answer: (n) => sideAnswer(request, n) };
      return { side: false, answer: (n, reply) => answerMessages(request, reply, n, cache) };
    }
    if (request.method === 'GET' && path === '/v1/models') {
      const data = ['claude-sonnet-5', 'claude-sonnet-4-5', 'claude-haiku-4-5-20251001'].map((id) => ({ type: 'model', id, display_name: id, created_at: '2026-01-01T00:00:00Z' }));
      return { side: true, answer: () => ({ status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ data, has_more: false, first_id: data[0]?.id, last_id: data.at(-1)?.id }) }) };
    }
    // claude's connectivity check is a HEAD of the base URL.
    if (request.method === 'HEAD' || (request.method === 'GET' && path === '/')) return { side: true, answer: () => ({ status: 200, headers: {}, body: '' }) };
    return { side: true, answer: () => ({ status: 404, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: `no ${path}` } }) }) };
  },
};
