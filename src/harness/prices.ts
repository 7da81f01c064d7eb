/** What a launch cost when its harness did not say (docs/spend.md): a model not in the table costs `unknown`, never a guess. PURE MODULE. */
import type { TokenUsage } from './report.js';

/** When the table was last checked against the providers' published prices. */
export const PRICES_AS_OF = '2026-12-03';

/** US dollars per million tokens. */
export interface ModelPrice {
  input: number;
  output: number;
  cacheRead: number;
  /** Tokens written to the prompt cache (Anthropic's 5-minute writes, 1.25× input); OpenAI charges no writes. */
  cacheWrite: number;
  /** Tokens written to the prompt cache for an hour (Anthropic's `ttl: "1h"`, 2× input). */
  cacheWrite1h: number;
  /** OpenAI's `input_tokens` include the cached ones (codex's `cached_input_tokens`); Anthropic's exclude them. */
  inputIncludesCacheRead: boolean;
}

const anthropic = (input: number, output: number): ModelPrice => ({
  input,
  output,
  cacheRead: input / 10,
  cacheWrite: input * 1.25,
  cacheWrite1h: input * 2,
  inputIncludesCacheRead: false,
});
const openai = (input: number, output: number, cacheRead: number): ModelPrice => ({
  input,
  output,
  cacheRead,
  cacheWrite: 0,
  cacheWrite1h: 0,
  inputIncludesCacheRead: true,
});

/** By model ID as the harnesses report it, or as the profile names it (codex reports none). */
export const PRICES: Readonly<Record<string, ModelPrice>> = {
  'claude-opus-5': anthropic(5, 25),
  'claude-opus-4-8': anthropic(5, 25),
  'claude-opus-4-7': anthropic(5, 25),
  'claude-opus-4-6': anthropic(5, 25),
  'claude-opus-4-5': anthropic(5, 25),
  'claude-opus-4-1': anthropic(15, 75),
  'claude-sonnet-5': anthropic(3, 15),
  'claude-sonnet-4-6': anthropic(3, 15),
  'claude-sonnet-4-5': anthropic(3, 15),
  'claude-sonnet-4': anthropic(3, 15),
  'claude-haiku-4-5': anthropic(1, 5),
  'gpt-5.1-codex': openai(1.25, 10, 0.125),
  'gpt-5.1-codex-mini': openai(0.25, 2, 0.025),
  'gpt-5.1': openai(1.25, 10, 0.125),
  'gpt-5-codex': openai(1.25, 10, 0.125),
  'gpt-5': openai(1.25, 10, 0.125),
  'gpt-5-mini': openai(0.25, 2, 0.025),
};

/** A dated ID (`claude-haiku-4-5-20251001`) is priced by its undated prefix. */
export function priceOf(model: string | null | undefined): ModelPrice | undefined {
  if (!model) return undefined;
  const id = model
    .trim()
    .toLowerCase()
    .replace(/^[a-z]+\//, ''); // `anthropic/claude-…` as some providers name it
  return PRICES[id] ?? PRICES[id.replace(/-\d{8}$/, '')];
}

type CostSource = 'harness' | 'price-table' | 'unknown';

interface LaunchCost {
  /** US dollars; null when unknown. */
  costUsd: number | null;
  source: CostSource;
}

/** What the harness reported, else its usage at the table's price, else unknown. */
export function launchCost(launch: { model: string | null; usage: TokenUsage | null; costUsd: number | null }): LaunchCost {
  if (launch.costUsd !== null && Number.isFinite(launch.costUsd)) return { costUsd: launch.costUsd, source: 'harness' };
  const price = priceOf(launch.model);
  if (price === undefined || launch.usage === null) return { costUsd: null, source: 'unknown' };
  const { inputTokens, outputTokens, cacheReadTokens = 0, cacheWriteTokens = 0, cacheWrite1hTokens = 0 } = launch.usage;
  const uncached = price.inputIncludesCacheRead ? Math.max(0, inputTokens - cacheReadTokens) : inputTokens;
  // `cacheWriteTokens` counts every write; the hour-long ones among them are priced at their own rate.
  const hour = Math.min(cacheWrite1hTokens, cacheWriteTokens);
  const micro =
    uncached * price.input +
    outputTokens * price.output +
    cacheReadTokens * price.cacheRead +
    (cacheWriteTokens - hour) * price.cacheWrite +
    hour * price.cacheWrite1h;
  return { costUsd: micro / 1_000_000, source: 'price-table' };
}

/** Both providers' batch APIs bill every token class at half the live price (cache reads and writes too: the discounts stack). */
export const BATCH_DISCOUNT = 0.5;

export function batchLaunchCost(model: string | null, usage: TokenUsage): number | null {
  const live = launchCost({ model, usage, costUsd: null }).costUsd;
  return live === null ? null : live * BATCH_DISCOUNT;
}
