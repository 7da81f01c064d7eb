/** The provider's limit headers: an early warning from a successful response, and a usage limit's reset from a refused one. */
import type { RateLimitInfo } from '../report.js';

/** A limit is near when less than this share of a window's requests or tokens remains. */
const RATE_LIMIT_WARNING_SHARE = 0.1;

/**
 * An early warning from a successful response's limit headers (Anthropic's `anthropic-ratelimit-<window>-*`,
 * OpenAI's `x-ratelimit-*-<window>`): the window with the least share left, when under RATE_LIMIT_WARNING_SHARE.
 * The sweep's pace halves its concurrency on it.
 */
export function rateLimitWarningFromHeaders(headers: Headers | undefined, now: Date): RateLimitInfo | undefined {
  if (!headers) return undefined;
  const windows = new Map<string, { limit?: number; remaining?: number; reset?: string | null }>();
  const window = (name: string) => windows.get(name) ?? windows.set(name, {}).get(name)!;
  headers.forEach((value, name) => {
    const anthropic = /^anthropic-ratelimit-(requests|tokens|input-tokens|output-tokens)-(limit|remaining|reset)$/.exec(name);
    const openai = /^x-ratelimit-(limit|remaining|reset)-(requests|tokens)$/.exec(name);
    const [kind, field] = anthropic ? [anthropic[1]!, anthropic[2]!] : openai ? [openai[2]!, openai[1]!] : [undefined, undefined];
    if (kind === undefined) return;
    if (field === 'reset') {
      const at = resetTime(name, value, now);
      window(kind).reset = at === undefined ? null : new Date(at).toISOString();
    } else if (Number.isFinite(Number(value)) && value.trim() !== '') {
      window(kind)[field as 'limit' | 'remaining'] = Number(value);
    }
  });
  let lowest: RateLimitInfo | undefined;
  for (const [kind, seen] of windows) {
    if (seen.limit === undefined || seen.remaining === undefined || seen.limit <= 0) continue;
    const left = seen.remaining / seen.limit;
    if (left >= RATE_LIMIT_WARNING_SHARE) continue;
    if (lowest === undefined || 1 - left > (lowest.utilization ?? 0)) {
      lowest = { status: 'allowed_warning', type: `${kind} (${seen.remaining} of ${seen.limit} left)`, resetsAt: seen.reset ?? null, utilization: 1 - left };
    }
  }
  return lowest;
}

/** A `*-reset` header's epoch ms: Anthropic's is RFC 3339; OpenAI's a Go-style duration from now (`1s`, `6m0s`, `20ms`, `1h2m3.5s`). */
function resetTime(name: string, value: string, now: Date): number | undefined {
  if (name.startsWith('anthropic-')) return Number.isFinite(Date.parse(value)) ? Date.parse(value) : undefined;
  const parts = [...value.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)];
  if (parts.length === 0 || parts.map((part) => part[0]).join('') !== value.trim()) return undefined;
  const unit = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 } as const;
  return parts.reduce((total, part) => total + Number(part[1]) * unit[part[2] as keyof typeof unit], now.getTime());
}

/** When a limit resets: `retry-after` (seconds or an HTTP date), else the latest `*-reset` header; null when none says. */
export function resetFromHeaders(headers: Headers | undefined, now: Date): string | null {
  if (!headers) return null;
  const retryAfter = headers.get('retry-after');
  if (retryAfter !== null) {
    const seconds = Number(retryAfter);
    if (retryAfter.trim() !== '' && Number.isFinite(seconds)) return new Date(now.getTime() + seconds * 1000).toISOString();
    const date = Date.parse(retryAfter);
    if (Number.isFinite(date)) return new Date(date).toISOString();
  }
  let latest: number | undefined;
  headers.forEach((value, name) => {
    if (!/^anthropic-ratelimit-.*-reset$/.test(name) && !name.startsWith('x-ratelimit-reset-')) return;
    const at = resetTime(name, value, now);
    if (at !== undefined && (latest === undefined || at > latest)) latest = at;
  });
  return latest === undefined ? null : new Date(latest).toISOString();
}
