/** Before a model-API sweep: what each unit's request puts first for the prompt cache (whichever is billed less), and its shared prefixes' sizes. */
import { mkdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../../../fs/atomic.js';
import { sha256 } from '../../../fs/digest.js';
import { cachedPrefixTokens, sharedPartOf, type ToolCriterion } from '../../../harness/executors/api-request.js';
import type { HarnessName, Profile } from '../../../harness/profiles.js';
import { cachePrefixReport, estimateTokens, minimumCacheableTokens, type CachePrefixReport } from '../../../harness/prompt-cache.js';
import type { CachePrefix } from '../../../harness/prompt-cache.js';
import type { SweepUnit } from '../../../review/sweep-types.js';

type Sizes = Map<string, { tokens: number; units: number }>;

/** A cache write (Anthropic 1.25×, 2× at a 1-hour lifetime; OpenAI no premium) and a read (about a tenth), in input prices. */
const cacheWeights = (profile: Profile) => ({ write: profile.harness === 'anthropic' ? (profile.cacheTtl === '1h' ? 2 : 1.25) : 1, read: 0.1 });

/** A prefix at the minimum is written once and read by the rest; one below it is paid in full by each. Weighs what is billed, not only what is read. */
const billed = (sizes: Sizes, rest: number, minimum: number, weights: { write: number; read: number }) =>
  rest +
  [...sizes.values()].reduce(
    (sum, size) => sum + (size.tokens >= minimum ? size.tokens * (weights.write + weights.read * (size.units - 1)) : size.tokens * size.units),
    0,
  );

/** On Anthropic every note-first pair of a note offers the same tools: its criteria among the sweep's note-first pairs. */
export function noteToolLists(units: readonly SweepUnit[], harness: HarnessName): Map<string, ToolCriterion[]> {
  const lists = new Map<string, Map<string, ToolCriterion>>();
  if (harness !== 'anthropic') return new Map();
  for (const unit of units) {
    if (unit.criteria.length !== 1 || unit.cachePrefix !== 'note') continue;
    const criterion = unit.criteria[0]!;
    const list = lists.get(unit.note) ?? lists.set(unit.note, new Map()).get(unit.note)!;
    list.set(criterion.id, { id: criterion.id, report: criterion.report });
  }
  return new Map([...lists].map(([note, list]) => [note, [...list.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))]));
}

const noteToolsFile = (runDir: string, note: string) => join(runDir, 'note-tools', `${sha256(note).slice(0, 32)}.json`);

/** Afresh: a later sweep of the same run ID may choose otherwise. */
export async function writeNoteTools(runDir: string, units: readonly SweepUnit[], harness: HarnessName): Promise<void> {
  await rm(join(runDir, 'note-tools'), { recursive: true, force: true });
  const lists = noteToolLists(units, harness);
  if (lists.size === 0) return;
  await mkdir(join(runDir, 'note-tools'), { recursive: true });
  for (const [note, tools] of lists) await writeFileAtomic(noteToolsFile(runDir, note), `${JSON.stringify({ note, tools })}\n`);
}

/** Undefined when the sweep wrote none (a pair asked with `record_review`). */
export async function readNoteTools(runDir: string, note: string): Promise<ToolCriterion[] | undefined> {
  const text = await readFile(noteToolsFile(runDir, note), 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  const read = JSON.parse(text) as { note: string; tools: ToolCriterion[] };
  return read.note === note ? read.tools : undefined;
}

/**
 * Marks pairs and bundles (chosen for apart) with the part put first when the other is billed less. Texts are the files as they stand,
 * bounding the watched parts from above. A CLI profile's units come back as they are: the CLI composes its own prompts.
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
  const weights = cacheWeights(profile);
  // The other part's tokens, as the request sends it, by what it is built of (it recurs: a pair's note under each of its criteria).
  const counted = new Map<string, number>();
  const sizesOf = async (group: readonly SweepUnit[], first: CachePrefix): Promise<{ sizes: Sizes; rest: number }> => {
    const sizes: Sizes = new Map();
    let rest = 0;
    // On Anthropic a note-first pair offers its note's tools (one per criterion, the same for all its pairs); otherwise
    // the answer's schema names the unit's criteria and comes first in the cached prefix: units share a prefix only when they share their criteria.
    const tools =
      first === 'note'
        ? noteToolLists(
            group.map((unit) => ({ ...unit, cachePrefix: first })),
            profile.harness,
          )
        : new Map<string, ToolCriterion[]>();
    for (const unit of group) {
      const criteria = await Promise.all(unit.criteria.map(async (criterion) => ({ id: criterion.id, text: await text(criterion.path) })));
      const noteText = await text(unit.note);
      // What the request sends past the prefix: the other part (the expected line is the same either way).
      const other: CachePrefix = first === 'note' ? 'criteria' : 'note';
      const otherKey = `${other}\0${other === 'note' ? unit.note : unit.criteria.map((criterion) => criterion.path).join('\0')}`;
      rest +=
        counted.get(otherKey) ??
        counted.set(otherKey, estimateTokens(sharedPartOf(unit.note, other === 'note' ? noteText : '', criteria, other))).get(otherKey)!;
      const noteTools = tools.get(unit.note);
      const criteriaKey = unit.criteria.map((criterion) => criterion.path).join(', ');
      const key = first === 'note' ? (noteTools ? unit.note : `${unit.note}\n${criteriaKey}`) : criteriaKey;
      const seen = sizes.get(key);
      if (seen) {
        seen.units += 1;
        continue;
      }
      sizes.set(key, {
        tokens: cachedPrefixTokens(
          profile.harness,
          sharedPartOf(unit.note, first === 'note' ? noteText : '', criteria, first),
          criteria.map((criterion) => criterion.id),
          noteTools,
        ),
        units: 1,
      });
    }
    return { sizes, rest };
  };
  const chosen: Sizes = new Map();
  const firsts = new Map<'pair' | 'bundle', CachePrefix | undefined>();
  for (const grouping of ['pair', 'bundle'] as const) {
    const group = units.filter((unit) => unit.criteria.length > 1 === (grouping === 'bundle'));
    const usual: CachePrefix = grouping === 'pair' ? 'criteria' : 'note';
    const other: CachePrefix = usual === 'note' ? 'criteria' : 'note';
    const [asUsual, asOther] = [await sizesOf(group, usual), await sizesOf(group, other)];
    const swap = billed(asOther.sizes, asOther.rest, minimum, weights) < billed(asUsual.sizes, asUsual.rest, minimum, weights);
    firsts.set(grouping, swap ? other : undefined);
    for (const [key, size] of swap ? asOther.sizes : asUsual.sizes) chosen.set(key, size);
  }
  const marked = units.map((unit): SweepUnit => {
    const first = firsts.get(unit.criteria.length > 1 ? 'bundle' : 'pair');
    return first ? { ...unit, cachePrefix: first } : unit;
  });
  return { units: marked, report: cachePrefixReport(profile.model ?? profile.harness, minimum, chosen) };
}
