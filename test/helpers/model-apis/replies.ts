// What a stand-in answers, scripted per test: one reply per agent request, the last one repeating.
import { minimumCacheableTokens } from '../../../src/harness/prompt-cache.js';

/** Token counts a stand-in reports for one answer. */
export interface ReplyUsage {
  inputTokens: number;
  outputTokens: number;
}

interface ReplyCommon {
  /** Extra response headers (rate-limit headers, for instance). */
  headers?: Record<string, string>;
  usage?: ReplyUsage;
}

export type Reply =
  /** A turn that writes `path` (relative to the harness's working directory) through the harness's own file tool. */
  | (ReplyCommon & { kind: 'write'; path: string; content: string })
  /** A turn that reads `path` (relative to the working directory) through the harness's own file tool. */
  | (ReplyCommon & { kind: 'read'; path: string })
  /** A text answer that ends the turn. */
  | (ReplyCommon & { kind: 'text'; text: string })
  /** An HTTP error with the API's own error body. */
  | (ReplyCommon & {
      kind: 'error';
      status: number;
      error: 'usage-limit' | 'server' | 'overloaded';
      message?: string;
      retryAfterSeconds?: number;
      resetsAt?: number;
    })
  /** The connection is closed after the request is read, with no response at all. */
  | (ReplyCommon & { kind: 'drop' })
  /**
   * A structured review answer (a model-API executor's request): one entry per criterion the request
   * names (`<criterion id="…">`), each with this verdict and these findings; `malformed` answers with
   * entries that are not the schema's; `perCriterion` answers a criterion with its own verdict and findings;
   * `literal` fills the request's answer schema literally (`literalAnswer`), whatever the prompt says;
   * `otherTool` (Anthropic) answers through a tool the request offers other than the forced one, its
   * schema filled literally (a review of that tool's criterion).
   */
  | (ReplyCommon & {
      kind: 'review';
      verdict: string;
      findings: string[];
      malformed?: boolean;
      literal?: boolean;
      otherTool?: boolean;
      perCriterion?: Record<string, { verdict: string; findings: string[] }>;
    });

export const defaultUsage: ReplyUsage = { inputTokens: 1200, outputTokens: 40 };

/** The replies a test scripts a stand-in with. */
export const reply = {
  write: (path: string, content = 'probe ok\n', options: ReplyCommon = {}): Reply => ({ kind: 'write', path, content, ...options }),
  read: (path: string, options: ReplyCommon = {}): Reply => ({ kind: 'read', path, ...options }),
  text: (text: string, options: ReplyCommon = {}): Reply => ({ kind: 'text', text, ...options }),
  /** A 429 usage limit: Anthropic's `rate_limit_error`, OpenAI's `usage_limit_reached` (with `resets_at` when given). */
  usageLimit: (options: ReplyCommon & { retryAfterSeconds?: number; resetsAt?: number } = {}): Reply => ({
    kind: 'error',
    status: 429,
    error: 'usage-limit',
    ...options,
  }),
  serverError: (options: ReplyCommon & { status?: number } = {}): Reply => ({ kind: 'error', error: 'server', ...options, status: options.status ?? 500 }),
  drop: (): Reply => ({ kind: 'drop' }),
  review: (verdict = 'pass', findings: string[] = [], options: ReplyCommon = {}): Reply => ({ kind: 'review', verdict, findings, ...options }),
  malformedReview: (options: ReplyCommon = {}): Reply => ({ kind: 'review', verdict: 'pass', findings: [], malformed: true, ...options }),
  /** The smallest answer the request's schema allows, read from the schema alone (a model decoding into it literally). */
  literalReview: (options: ReplyCommon = {}): Reply => ({ kind: 'review', verdict: 'pass', findings: [], literal: true, ...options }),
  /** An answer through another tool than the one `tool_choice` forces (Anthropic): a model disobeying the request. */
  otherToolReview: (options: ReplyCommon = {}): Reply => ({ kind: 'review', verdict: 'pass', findings: [], otherTool: true, ...options }),
};

/** The criterion ids a structured review request names, in order (its last "Criteria, in order: …" line). */
export function requestedCriteria(text: string): string[] {
  const found = [...text.matchAll(/Criteria, in order: (.*?)\. Verdicts allowed:/g)].at(-1);
  return found ? found[1]!.split(', ') : [];
}

/** Every string in a parsed request body, joined by newlines (what the model would read). */
export function allText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(allText).join('\n');
  if (typeof value === 'object' && value !== null) return Object.values(value).map(allText).join('\n');
  return '';
}

/** A stand-in's prompt cache: the prefixes it has seen, and the shortest it caches (in tokens). */
export interface PromptCache {
  seen: Set<string>;
  /** The shortest prefix cached; undefined: each model's own minimum (src/harness/prompt-cache.ts). */
  minimumTokens?: number;
  /** When each cached prefix expires (ms): Anthropic's 5 minutes or 1 hour from its last use. */
  expiresAt: Map<string, number>;
  /** The cache's clock (ms); tests move it on to expire entries without waiting. */
  now: () => number;
  /**
   * How long after a write its entry becomes readable (ms; default 0). The API makes an entry
   * readable once the first answer that wrote it has begun, so requests sent together all write.
   */
  writeDelayMs?: number;
  /** When each entry became readable (ms), with `writeDelayMs`. */
  readableAt?: Map<string, number>;
  /**
   * Count every agent request's tokens as sent (the CLIs' turns too, through their own breakpoints),
   * not only structured review requests; the output as the reply's text or tool input. For benches.
   */
  countAll?: boolean;
}

/** The minimum cacheable length the stand-in applies to `model`. */
export function minimumOf(cache: PromptCache, api: 'anthropic' | 'openai', model: unknown): number {
  return cache.minimumTokens ?? minimumCacheableTokens(api, typeof model === 'string' ? model : undefined) ?? 1024;
}

/**
 * The smallest value a JSON Schema allows, read literally: an object's required properties only, an
 * array's `minItems` items, a string's first enum value (the i-th item of an array takes the i-th, as
 * a model filling one entry per listed value would) or its `minLength` in spaces, `anyOf`'s first
 * branch. What a model answering "around" the schema would give when the schema lets it.
 */
export function literalAnswer(schema: unknown, index = 0): unknown {
  const node = (schema ?? {}) as Record<string, unknown>;
  if (Array.isArray(node.anyOf)) return literalAnswer(node.anyOf[0], index);
  if (Array.isArray(node.enum)) return node.enum[index % node.enum.length];
  switch (node.type) {
    case 'object': {
      const properties = (node.properties ?? {}) as Record<string, unknown>;
      const required = Array.isArray(node.required) ? (node.required as string[]) : [];
      return Object.fromEntries(required.map((name) => [name, literalAnswer(properties[name], index)]));
    }
    case 'array':
      return Array.from({ length: typeof node.minItems === 'number' ? node.minItems : 0 }, (_, item) => literalAnswer(node.items, item));
    case 'string':
      return ' '.repeat(typeof node.minLength === 'number' ? node.minLength : 0);
    case 'number':
    case 'integer':
      return typeof node.minimum === 'number' ? node.minimum : 0;
    case 'boolean':
      return false;
    default:
      return null;
  }
}

/** The structured answer a `review` reply gives for a request naming `criteria` (and carrying `schema`). */
export function reviewAnswer(reply: Extract<Reply, { kind: 'review' }>, criteria: string[], schema?: unknown): unknown {
  if (reply.literal) return literalAnswer(schema);
  if (reply.malformed) return { reviews: criteria.map((criterion) => ({ criterion, outcome: 'looks fine' })) };
  return { reviews: criteria.map((criterion) => ({ criterion, verdict: reply.verdict, findings: reply.findings, ...reply.perCriterion?.[criterion] })) };
}

/** Tokens as the stand-ins count them: a quarter of the bytes, rounded up. */
export const tokensOf = (text: string): number => Math.ceil(Buffer.byteLength(text) / 4);

/**
 * The headers Claude Code 2.1.197 turns into a `rate_limit_event` (read only under a claude.ai
 * login: CLAUDE_CODE_OAUTH_TOKEN); `resetsAt` is Unix seconds. `allowed_warning` also needs a
 * window's utilization and surpassed threshold (`5h` → five_hour, `7d` → seven_day).
 */
export function unifiedRateLimitHeaders(options: {
  status: 'allowed' | 'allowed_warning' | 'rejected';
  resetsAt: number;
  claim?: 'five_hour' | 'seven_day';
  utilization?: number;
}): Record<string, string> {
  const claim = options.claim ?? 'five_hour';
  const window = claim === 'five_hour' ? '5h' : '7d';
  const headers: Record<string, string> = {
    'anthropic-ratelimit-unified-status': options.status,
    'anthropic-ratelimit-unified-reset': String(options.resetsAt),
    'anthropic-ratelimit-unified-representative-claim': claim,
  };
  if (options.status === 'allowed_warning') {
    headers[`anthropic-ratelimit-unified-${window}-utilization`] = String(options.utilization ?? 0.95);
    headers[`anthropic-ratelimit-unified-${window}-reset`] = String(options.resetsAt);
    headers[`anthropic-ratelimit-unified-${window}-surpassed-threshold`] = '0.9';
  }
  return headers;
}

/** An error reply as JSON with its status, its `retry-after` when it has one, and the dialect's own error body. */
export function errorAnswer(
  reply: Extract<Reply, { kind: 'error' }>,
  headers: Record<string, string>,
  body: unknown,
): { status: number; headers: Record<string, string>; body: string } {
  return {
    status: reply.status,
    headers: {
      'content-type': 'application/json',
      ...(reply.retryAfterSeconds !== undefined && { 'retry-after': String(reply.retryAfterSeconds) }),
      ...headers,
    },
    body: JSON.stringify(body),
  };
}
