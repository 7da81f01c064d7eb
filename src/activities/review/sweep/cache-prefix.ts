/** Before a model-API sweep starts: the estimated size of each unit's shared prefix against its model's minimum cacheable length. */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cachedPrefixTokens, sharedPartOf } from '../../../harness/executors/api-review.js';
import type { Profile } from '../../../harness/profiles.js';
import { cachePrefixReport, minimumCacheableTokens, type CachePrefixReport } from '../../../harness/prompt-cache.js';
import type { SweepUnit } from '../../../review/sweep-types.js';

/**
 * The report of the units' shared prefixes (a pair's criterion, a bundle's note) on the profile's
 * model; undefined for a CLI profile, whose prompts the CLI composes. The texts are the files as they
 * stand (a unit is captured later; a note's whole text, which bounds its watched parts from above).
 */
export async function cachePrefixes(checkout: string, units: readonly SweepUnit[], profile: Profile): Promise<CachePrefixReport | undefined> {
  const minimum = minimumCacheableTokens(profile.harness, profile.model);
  if (minimum === undefined) return undefined;
  const texts = new Map<string, Promise<string>>();
  const text = (path: string) => texts.get(path) ?? texts.set(path, readFile(join(checkout, path), 'utf8').catch(() => '')).get(path)!;
  const sizes = new Map<string, { tokens: number; units: number }>();
  for (const unit of units) {
    const bundle = unit.criteria.length > 1;
    const key = bundle ? unit.note : unit.criteria[0]!.path;
    const seen = sizes.get(key);
    if (seen) {
      seen.units += 1;
      continue;
    }
    const criteria = await Promise.all(unit.criteria.map(async (criterion) => ({ id: criterion.id, text: await text(criterion.path) })));
    const shared = sharedPartOf(unit.note, bundle ? await text(unit.note) : '', criteria);
    sizes.set(key, { tokens: cachedPrefixTokens(profile.harness, shared), units: 1 });
  }
  return cachePrefixReport(profile.model ?? profile.harness, minimum, sizes);
}
