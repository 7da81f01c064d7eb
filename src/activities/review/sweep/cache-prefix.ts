/**
 * Before a model-API sweep starts: what each pair's request puts first for the prompt cache (its
 * criterion or its note, whichever lets more tokens be read from the cache), and the estimated size
 * of each unit's shared prefix against its model's minimum cacheable length.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cachedPrefixTokens, sharedPartOf } from '../../../harness/executors/api-review.js';
import type { Profile } from '../../../harness/profiles.js';
import { cachePrefixReport, minimumCacheableTokens, type CachePrefixReport } from '../../../harness/prompt-cache.js';
import type { SweepUnit } from '../../../review/sweep-types.js';

type Sizes = Map<string, { tokens: number; units: number }>;

/** Tokens a sweep may read from the cache with these prefixes: every unit after a prefix's first, when the prefix reaches the minimum. */
const readable = (sizes: Sizes, minimum: number) => [...sizes.values()].reduce((sum, size) => sum + (size.tokens >= minimum ? (size.units - 1) * size.tokens : 0), 0);

/**
 * The units, a pair marked `cachePrefix: 'note'` when its notes' prefixes let more tokens be read than
 * its criteria's (a note is often longer than a criterion and is asked under every criterion), and the
 * report of the shared prefixes below the model's minimum. The texts are the files as they stand (a
 * note's whole text, which bounds its watched parts from above). A CLI profile's units are returned as
 * they are, with no report: the CLI composes its own prompts.
 */
export async function planCachePrefixes(checkout: string, units: readonly SweepUnit[], profile: Profile): Promise<{ units: SweepUnit[]; report?: CachePrefixReport }> {
  const minimum = minimumCacheableTokens(profile.harness, profile.model);
  if (minimum === undefined) return { units: [...units] };
  const texts = new Map<string, Promise<string>>();
  const text = (path: string) => texts.get(path) ?? texts.set(path, readFile(join(checkout, path), 'utf8').catch(() => '')).get(path)!;
  const prefixTokens = async (unit: SweepUnit, first: 'note' | 'criterion') => {
    const criteria = await Promise.all(unit.criteria.map(async (criterion) => ({ id: criterion.id, text: await text(criterion.path) })));
    const noteFirst = unit.criteria.length > 1 || first === 'note';
    return cachedPrefixTokens(profile.harness, sharedPartOf(unit.note, noteFirst ? await text(unit.note) : '', criteria, first));
  };
  const tally = async (sizes: Sizes, key: string, unit: SweepUnit, first: 'note' | 'criterion') => {
    const seen = sizes.get(key);
    if (seen) seen.units += 1;
    else sizes.set(key, { tokens: await prefixTokens(unit, first), units: 1 });
  };
  const pairs = units.filter((unit) => unit.criteria.length === 1);
  const byCriterion: Sizes = new Map();
  const byNote: Sizes = new Map();
  for (const unit of pairs) {
    await tally(byCriterion, unit.criteria[0]!.path, unit, 'criterion');
    await tally(byNote, unit.note, unit, 'note');
  }
  const noteFirst = readable(byNote, minimum) > readable(byCriterion, minimum);
  const marked = units.map((unit): SweepUnit => (noteFirst && unit.criteria.length === 1 ? { ...unit, cachePrefix: 'note' } : unit));
  const sizes: Sizes = new Map(noteFirst ? byNote : byCriterion);
  for (const unit of marked) if (unit.criteria.length > 1) await tally(sizes, unit.note, unit, 'note');
  return { units: marked, report: cachePrefixReport(profile.model ?? profile.harness, minimum, sizes) };
}
