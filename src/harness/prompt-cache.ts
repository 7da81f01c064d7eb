/** A prefix shorter than its model's minimum is silently not cached: a sweep reports those before it starts. PURE MODULE. */
import type { HarnessName } from './profiles.js';

/** What a model-API review request puts before the cache breakpoint, chosen per unit. */
export type CachePrefix = 'note' | 'criteria';

/** Tokens by model ID prefix (the first match wins): Anthropic's published table as of PRICES_AS_OF (docs/harnesses.md). */
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

/** Anthropic's most common minimum, for a model the table does not know. */
const ANTHROPIC_DEFAULT_MINIMUM = 1024;
const OPENAI_MINIMUM = 1024;

/** Undefined for a CLI executor. */
export function minimumCacheableTokens(harness: HarnessName, model: string | undefined): number | undefined {
  if (harness === 'openai') return OPENAI_MINIMUM;
  if (harness !== 'anthropic') return undefined;
  const id = (model ?? '').trim().toLowerCase();
  return MINIMUM_CACHEABLE_TOKENS.find(([prefix]) => id.startsWith(prefix))?.[1] ?? ANTHROPIC_DEFAULT_MINIMUM;
}

/** Without Node's Buffer. */
function utf8Bytes(text: string): number {
  let bytes = 0;
  for (const char of text) {
    const code = char.codePointAt(0)!;
    bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
  }
  return bytes;
}

/** A quarter of the UTF-8 bytes, as the test stand-ins count; prose runs 3.5–4.5 bytes a token, so an estimate near a minimum may fall either side. */
export const estimateTokens = (text: string): number => Math.ceil(utf8Bytes(text) / 4);

interface ShortPrefix {
  /** The file the prefix is built on: the criterion (pair grouping) or the note (bundle grouping). */
  shared: string;
  tokens: number;
  units: number;
}

export interface CachePrefixReport {
  model: string;
  minimumTokens: number;
  /** Distinct shared prefixes, and those below the minimum. */
  prefixes: number;
  below: number;
  unitsBelow: number;
  /** Shortest first. */
  examples: ShortPrefix[];
}

const EXAMPLES = 5;

/** `sizes` maps each shared file to its prefix's tokens and the units that share it. */
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

export function describeCachePrefixes(report: CachePrefixReport): string {
  if (report.below === 0) return `every shared prefix reaches ${report.model}'s cache minimum (${report.minimumTokens} tokens)`;
  const shortest = report.examples[0];
  return (
    `${report.unitsBelow} unit${report.unitsBelow === 1 ? '' : 's'} (${report.below} of ${report.prefixes} shared prefixes) below ${report.model}'s cache minimum of ${report.minimumTokens} tokens: not cached` +
    (shortest ? `; shortest ${shortest.shared} at ~${shortest.tokens}` : '')
  );
}
