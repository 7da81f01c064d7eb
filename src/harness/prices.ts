/**
 * What a launch cost when its harness did not say: a price table per model, in US dollars per
 * million tokens, and the cost of one launch from its token usage. The table is documented in
 * docs/spend.md; a model not in it costs `unknown`, never a guess.
 *
 * PURE MODULE: data and arithmetic only; workflows import it.
 */
import type { TokenUsage } from './report.js';

/** The day the table was last checked against the providers' published prices. */
export const PRICES_AS_OF = '2026-12-03';

/** US dollars per million tokens. */
export interface ModelPrice {
  input: number;
  output: number;
  /** Tokens read from the prompt cache. */
  cacheRead: number;
  /** Tokens written to the prompt cache (Anthropic's 5-minute writes, 1.25× input); OpenAI charges no writes. */
  cacheWrite: number;
  /** Tokens written to the prompt cache for an hour (Anthropic's `ttl: "1h"`, 2× input). */
  cacheWrite1h: number;
  /**
   * How the provider counts input: Anthropic's `input_tokens` exclude the cache's tokens; OpenAI's
   * `input_tokens` include the cached ones (codex reports them as `cached_input_tokens`).
   */
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

/**
 * Prices by model ID as the harnesses report them (claude's `modelUsage` keys, pi's message model)
 * or as the profile names it (codex reports none). A dated ID (`claude-haiku-4-5-20251001`) is
 * priced by its undated prefix.
 */
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

/** The price of a model, by its exact ID or the undated ID it carries a date suffix on; undefined when unknown. */
export function priceOf(model: string | null | undefined): ModelPrice | undefined {
  if (!model) return undefined;
  const id = model
    .trim()
    .toLowerCase()
    .replace(/^[a-z]+\//, ''); // `anthropic/claude-…` as some providers name it
  return PRICES[id] ?? PRICES[id.replace(/-\d{8}$/, '')];
}

/** Where a launch's cost came from: the harness's own report, the price table, or nowhere. */
export type CostSource = 'harness' | 'price-table' | 'unknown';

export interface LaunchCost {
  /** US dollars; null when unknown. */
  costUsd: number | null;
  source: CostSource;
}

/** One launch's cost: what the harness reported, else its usage at the table's price for its model, else unknown. */
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

/**
 * What a provider batch charges against the live price: Anthropic's Message Batches and OpenAI's
 * Batch API both bill every token class at half (cache reads and writes included: the discounts stack).
 */
export const BATCH_DISCOUNT = 0.5;

/** One batched request's cost: its usage at the table's price, times the batch discount; null when the model is not in the table. */
export function batchLaunchCost(model: string | null, usage: TokenUsage): number | null {
  const live = launchCost({ model, usage, costUsd: null }).costUsd;
  return live === null ? null : live * BATCH_DISCOUNT;
}
