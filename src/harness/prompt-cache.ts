/**
 * What the model APIs' prompt caches need to know before a sweep starts: each model's minimum
 * cacheable length (a shorter prefix is silently not cached), the token estimate the sweep checks a
 * shared prefix with, and the report it gives of the prefixes below the minimum.
 *
 * PURE MODULE: data and arithmetic only.
 */
import type { HarnessName } from './profiles.js';

/**
 * The part of a model-API review request that goes first, before the cache breakpoint: a pair's note
 * or a bundle's criteria (the sweep chooses it per unit; the executor builds the request by it).
 */
export type CachePrefix = 'note' | 'criteria';

/**
 * The shortest prefix each model caches, in tokens, by model ID prefix (the first that matches
 * wins). Anthropic's published table (prompt caching, "Cache limitations") as of PRICES_AS_OF;
 * OpenAI caches every model from 1,024 tokens. docs/harnesses.md carries the table and its source.
 */
export const MINIMUM_CACHEABLE_TOKENS: readonly (readonly [prefix: string, tokens: number])[] = [
  ['claude-opus-5', 512],
  ['claude-opus-4-8', 1024],
  ['claude-opus-4-7', 2048],
  ['claude-opus-4-6', 4096],
  ['claude-opus-4-5', 4096],
  ['claude-opus-4', 1024],
  ['claude-sonnet-5', 1024],
  ['claude-sonnet-4', 1024],
  ['claude-haiku-4-5', 4096],
  ['claude-haiku-3', 2048],
  ['claude-3-5-haiku', 2048],
  ['claude-3-haiku', 2048],
];

/** Anthropic's minimum for a model the table does not know: the most common one. */
const ANTHROPIC_DEFAULT_MINIMUM = 1024;
/** OpenAI's automatic caching starts at 1,024 tokens for every model. */
const OPENAI_MINIMUM = 1024;

/** The minimum cacheable length of a model on an API executor, in tokens; undefined for a CLI executor. */
export function minimumCacheableTokens(harness: HarnessName, model: string | undefined): number | undefined {
  if (harness === 'openai') return OPENAI_MINIMUM;
  if (harness !== 'anthropic') return undefined;
  const id = (model ?? '').trim().toLowerCase();
  return MINIMUM_CACHEABLE_TOKENS.find(([prefix]) => id.startsWith(prefix))?.[1] ?? ANTHROPIC_DEFAULT_MINIMUM;
}

/** UTF-8 bytes of a string, without Node's Buffer. */
function utf8Bytes(text: string): number {
  let bytes = 0;
  for (const char of text) {
    const code = char.codePointAt(0)!;
    bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
  }
  return bytes;
}

/**
 * Tokens of a text as this project estimates them: a quarter of its UTF-8 bytes, rounded up — the
 * same count the test stand-ins report. English prose and Markdown tokenize at 3.5–4.5 bytes a token,
 * so a prefix estimated within a few percent of the minimum may fall either side of it.
 */
export const estimateTokens = (text: string): number => Math.ceil(utf8Bytes(text) / 4);

/** A shared prefix below its model's minimum: the sweep says so in its progress and summary. */
export interface ShortPrefix {
  /** The file the prefix is built on: the criterion (pair grouping) or the note (bundle grouping). */
  shared: string;
  tokens: number;
  units: number;
}

/** What a sweep on a model API said about its units' shared prefixes before it started. */
export interface CachePrefixReport {
  model: string;
  minimumTokens: number;
  /** How many distinct shared prefixes the sweep's units have, and how many of those are below the minimum. */
  prefixes: number;
  below: number;
  /** Units whose shared prefix is below the minimum: caching does nothing for them. */
  unitsBelow: number;
  /** The first of them, shortest first. */
  examples: ShortPrefix[];
}

/** How many short prefixes a report names. */
const EXAMPLES = 5;

/** The report of a sweep's shared prefixes: `sizes` maps each shared file to its prefix's tokens and the units that share it. */
export function cachePrefixReport(model: string, minimumTokens: number, sizes: ReadonlyMap<string, { tokens: number; units: number }>): CachePrefixReport {
  const short = [...sizes].filter(([, size]) => size.tokens < minimumTokens).map(([shared, size]) => ({ shared, ...size }));
  short.sort((a, b) => a.tokens - b.tokens || a.shared.localeCompare(b.shared));
  return {
    model,
    minimumTokens,
    prefixes: sizes.size,
    below: short.length,
    unitsBelow: short.reduce((sum, prefix) => sum + prefix.units, 0),
    examples: short.slice(0, EXAMPLES),
  };
}

/** One line for a person: how many units' prefixes are too short to cache, and the shortest. */
export function describeCachePrefixes(report: CachePrefixReport): string {
  if (report.below === 0) return `every shared prefix reaches ${report.model}'s cache minimum (${report.minimumTokens} tokens)`;
  const shortest = report.examples[0];
  return (
    `${report.unitsBelow} unit${report.unitsBelow === 1 ? '' : 's'} (${report.below} of ${report.prefixes} shared prefixes) below ${report.model}'s cache minimum of ${report.minimumTokens} tokens: not cached` +
    (shortest ? `; shortest ${shortest.shared} at ~${shortest.tokens}` : '')
  );
}
