// A local stand-in of a model API on 127.0.0.1 (port 0): answers each agent request with the next
// scripted reply (the last one repeats), answers the CLIs' side calls itself, and counts every
// request and its body bytes.
import { afterAll, afterEach } from '@jest/globals';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { anthropicDialect } from './anthropic.js';
import { openaiDialect } from './openai.js';
import type { PromptCache, Reply } from './replies.js';
import { standInBatches, type StandInBatches } from './batches.js';

export interface ParsedRequest {
  method: string;
  /** The path without its query (`/v1/messages?beta=true` → `/v1/messages`). */
  path: string;
  headers: IncomingMessage['headers'];
  /** Body bytes as they came over the wire. */
  bytes: number;
  raw: string;
  json?: Record<string, unknown>;
}

export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The tokens the answer reports, when the stand-in counted them (cache accounting on). */
  usage?: CountedUsage;
}

/** Tokens of one answer as the stand-in counted what was sent: uncached input, cache reads and writes, output. */
export interface CountedUsage {
  input: number;
  cacheRead: number;
  cacheWrite: number;
  output: number;
}

/** How one API's requests are told apart and answered. */
export interface ApiDialect {
  name: 'anthropic' | 'openai';
  route(
    request: ParsedRequest,
    cache: PromptCache,
  ): { side: true; answer: (n: number) => Answer } | { side: false; answer: (n: number, reply: Exclude<Reply, { kind: 'drop' }>) => Answer };
}

export interface RecordedRequest {
  n: number;
  method: string;
  path: string;
  bytes: number;
  /** A side call (claude's title, a connectivity check, codex's WebSocket attempt) rather than an agent turn. */
  side: boolean;
  /** What it was answered with: a reply kind, `side`, or an HTTP status. */
  answered: string;
  status: number | null;
  headers: IncomingMessage['headers'];
  json?: Record<string, unknown>;
  /** The tokens its answer reported, when counted. */
  usage?: CountedUsage;
}

export interface StandInStats {
  requests: number;
  bytes: number;
  agentRequests: number;
  agentBytes: number;
}

export interface StandIn {
  api: ApiDialect['name'];
  /** The base URL (no path): `http://127.0.0.1:<port>`. */
  url: string;
  /** Replaces the script: each agent request takes the next reply; the last one repeats. */
  script(...replies: Reply[]): void;
  readonly requests: readonly RecordedRequest[];
  stats(): StandInStats;
  /** Forgets the requests counted so far (the script stays). */
  resetCounts(): void;
  /** From now on every agent request waits unanswered until `release()`; `held()` counts those waiting now. */
  hold(): { held(): number; release(): void };
  /** The prompt cache: what prefixes it has seen, and its minimum cacheable length (default: the model's own). */
  readonly cache: PromptCache;
  /** Provider batches (Message Batches; Files + Batches): what was submitted, per custom_id, and when a batch ends. */
  readonly batches: StandInBatches;
  close(): Promise<void>;
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function parse(request: IncomingMessage, body: Buffer): ParsedRequest {
  const url = new URL(request.url ?? '/', 'http://stand-in');
  let text = '';
  try {
    text = (request.headers['content-encoding'] === 'gzip' ? gunzipSync(body) : body).toString('utf8');
  } catch {
    text = '';
  }
  let json: Record<string, unknown> | undefined;
  try {
    const value: unknown = text ? JSON.parse(text) : undefined;
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) json = value as Record<string, unknown>;
  } catch {
    json = undefined;
  }
  return { method: request.method ?? 'GET', path: url.pathname, headers: request.headers, bytes: body.length, raw: text, ...(json && { json }) };
}

/**
 * Stand-ins a test file starts: `start(api, ...replies)` starts one, closed after its test (or, with `afterAll`,
 * after the file: stand-ins a `beforeAll` set-up starts for every test).
 */
export function useStandIns(closing: 'afterEach' | 'afterAll' = 'afterEach'): (api: ApiDialect['name'], ...replies: Reply[]) => Promise<StandIn> {
  let started: StandIn[] = [];
  (closing === 'afterEach' ? afterEach : afterAll)(async () => {
    await Promise.all(started.map((standIn) => standIn.close()));
    started = [];
  });
  return async (api, ...replies) => {
    const standIn = await startStandIn(api, ...replies);
    started.push(standIn);
    return standIn;
  };
}

/** The base URL a model-API profile names for the stand-in: OpenAI's SDK wants the `/v1` on it. */
export const standInBaseUrl = (standIn: StandIn) => (standIn.api === 'openai' ? `${standIn.url}/v1` : standIn.url);

/** A model-API profile of `model` pointed at the stand-in, its key in `keyEnv`: one-minute tries, three attempts (`more` over those). */
export function standInProfile(standIn: StandIn, model: string, keyEnv: string, more: Record<string, unknown> = {}) {
  return { harness: standIn.api, model, 'api-key-env': keyEnv, 'base-url': standInBaseUrl(standIn), timeout: '1m', attempts: 3, ...more };
}

/** Sets a key variable the stand-ins' profiles name (a worker process the file starts inherits it), and returns its name. */
export function standInKey(name: string): string {
  process.env[name] = 'stand-in-key';
  return name;
}

/** Starts a stand-in of the Anthropic Messages API or the OpenAI Responses API. */
export async function startStandIn(api: ApiDialect['name'], ...initial: Reply[]): Promise<StandIn> {
  const dialect = api === 'anthropic' ? anthropicDialect : openaiDialect;
  let queue: Reply[] = [...initial];
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const cache: PromptCache = { seen: new Set(), expiresAt: new Map(), now: Date.now };
  const nextReply = (): Exclude<Reply, { kind: 'drop' }> => {
    const next = (queue.length > 1 ? queue.shift() : queue[0]) ?? { kind: 'text', text: 'Done.' };
    return next.kind === 'drop' ? { kind: 'error', status: 500, error: 'server' } : next;
  };
  const batches = standInBatches(dialect, cache, nextReply);
  let base = '';
  let gate: Promise<void> | undefined;
  let held = 0;

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const body = await readBody(request);
    const parsed = parse(request, body);
    const n = requests.length + 1;
    const record: RecordedRequest = {
      n,
      method: parsed.method,
      path: parsed.path,
      bytes: parsed.bytes,
      side: true,
      answered: 'side',
      status: null,
      headers: parsed.headers,
      ...(parsed.json && { json: parsed.json }),
    };
    requests.push(record);
    const batched = batches.route(parsed, base);
    const route = dialect.route(parsed, cache);
    let answer: Answer;
    if (batched) {
      record.answered = 'batch';
      answer = batched;
    } else if (route.side) {
      answer = route.answer(n);
    } else {
      record.side = false;
      if (gate) {
        held += 1;
        await gate;
        held -= 1;
      }
      const next = (queue.length > 1 ? queue.shift() : queue[0]) ?? { kind: 'text', text: 'Done.' };
      record.answered = next.kind;
      if (next.kind === 'drop') {
        request.socket.destroy();
        return;
      }
      try {
        answer = route.answer(n, next);
      } catch (error) {
        answer = {
          status: 400,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ error: { type: 'stand_in_error', message: (error as Error).message } }),
        };
      }
    }
    record.status = answer.status;
    if (answer.usage) record.usage = answer.usage;
    response.writeHead(answer.status, answer.headers);
    response.end(parsed.method === 'HEAD' ? undefined : answer.body);
  };

  const server: Server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500, { 'content-type': 'text/plain' });
      response.end(String(error));
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  base = `http://127.0.0.1:${port}`;

  const sum = (list: RecordedRequest[]) => list.reduce((total, request) => total + request.bytes, 0);
  return {
    api,
    url: `http://127.0.0.1:${port}`,
    script(...replies) {
      queue = [...replies];
    },
    hold() {
      let release = () => {};
      gate = new Promise<void>((resolve) => (release = resolve));
      return {
        held: () => held,
        release: () => {
          gate = undefined;
          release();
        },
      };
    },
    get requests() {
      return requests;
    },
    stats() {
      const agent = requests.filter((request) => !request.side);
      return { requests: requests.length, bytes: sum(requests), agentRequests: agent.length, agentBytes: sum(agent) };
    },
    resetCounts() {
      requests.length = 0;
    },
    cache,
    batches: batches.state,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
