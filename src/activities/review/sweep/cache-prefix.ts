/**
 * Before a model-API sweep starts: what each unit's request puts first for the prompt cache (a pair's
 * criterion or its note; a bundle's note or its criteria — whichever lets more tokens be read from
 * the cache), and the estimated size of each unit's shared prefix against its model's minimum
 * cacheable length.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cachedPrefixTokens, sharedPartOf } from '../../../harness/executors/api-review.js';
import type { Profile } from '../../../harness/profiles.js';
import { cachePrefixReport, minimumCacheableTokens, type CachePrefixReport } from '../../../harness/prompt-cache.js';
import type { CachePrefix } from '../../../harness/prompt-cache.js';
import type { SweepUnit } from '../../../review/sweep-types.js';

type Sizes = Map<string, { tokens: number; units: number }>;

/** Tokens a sweep may read from the cache with these prefixes: every unit after a prefix's first, when the prefix reaches the minimum. */
const readable = (sizes: Sizes, minimum: number) =>
  [...sizes.values()].reduce((sum, size) => sum + (size.tokens >= minimum ? (size.units - 1) * size.tokens : 0), 0);

/**
 * The units, each pair or bundle marked with the part it puts first when the other part lets more
 * tokens be read (a note is often longer than a criterion and asked under every criterion; a lens's
 * criteria recur in every note's bundle of that lens), and the report of the shared prefixes below
 * the model's minimum. Pairs and bundles are chosen for apart (a bundle sweep leaves some pairs). The
 * texts are the files as they stand (a note's whole text, which bounds its watched parts from above).
 * A CLI profile's units are returned as they are, with no report: the CLI composes its own prompts.
 */
export async function planCachePrefixes(
  checkout: string,
  units: readonly SweepUnit[],
  profile: Profile,
): Promise<{ units: SweepUnit[]; report?: CachePrefixReport }> {
  const minimum = minimumCacheableTokens(profile.harness, profile.model);
  if (minimum === undefined) return { units: [...units] };
  const texts = new Map<string, Promise<string>>();
  const text = (path: string) =>
    texts.get(path) ??
    texts
      .set(
        path,
        readFile(join(checkout, path), 'utf8').catch(() => ''),
      )
      .get(path)!;
  const sizesOf = async (group: readonly SweepUnit[], first: CachePrefix): Promise<Sizes> => {
    const sizes: Sizes = new Map();
    for (const unit of group) {
      // The answer's schema names the unit's criteria and comes first in the cached prefix: units share a prefix only when they share their criteria.
      const criteriaKey = unit.criteria.map((criterion) => criterion.path).join(', ');
      const key = first === 'note' ? `${unit.note}\n${criteriaKey}` : criteriaKey;
      const seen = sizes.get(key);
      if (seen) {
        seen.units += 1;
        continue;
      }
      const criteria = await Promise.all(unit.criteria.map(async (criterion) => ({ id: criterion.id, text: await text(criterion.path) })));
      sizes.set(key, {
        tokens: cachedPrefixTokens(
          profile.harness,
          sharedPartOf(unit.note, first === 'note' ? await text(unit.note) : '', criteria, first),
          criteria.map((criterion) => criterion.id),
        ),
        units: 1,
      });
    }
    return sizes;
  };
  const chosen: Sizes = new Map();
  const firsts = new Map<'pair' | 'bundle', CachePrefix | undefined>();
  for (const grouping of ['pair', 'bundle'] as const) {
    const group = units.filter((unit) => unit.criteria.length > 1 === (grouping === 'bundle'));
    const usual: CachePrefix = grouping === 'pair' ? 'criteria' : 'note';
    const other: CachePrefix = usual === 'note' ? 'criteria' : 'note';
    const [asUsual, asOther] = [await sizesOf(group, usual), await sizesOf(group, other)];
    const swap = readable(asOther, minimum) > readable(asUsual, minimum);
    firsts.set(grouping, swap ? other : undefined);
    for (const [key, size] of swap ? asOther : asUsual) chosen.set(key, size);
  }
  const marked = units.map((unit): SweepUnit => {
    const first = firsts.get(unit.criteria.length > 1 ? 'bundle' : 'pair');
    return first ? { ...unit, cachePrefix: first } : unit;
  });
  return { units: marked, report: cachePrefixReport(profile.model ?? profile.harness, minimum, chosen) };
}
