/**
 * What `--estimate` reads before a sweep or a compare run starts: the units the run would ask (the
 * sweep's own selection, grouping, cache prefixes and order; the compare run's own sample), each
 * model-API unit's request built as the executor builds it, and the recorded results' tokens. It
 * writes nothing and asks no server; src/runs/estimate.ts counts.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cachedPrefixTokens, outcomesOf, requestParts, reviewInstruction, toolTokens, type ReviewCriterion } from '../../../harness/executors/api-request.js';
import { batchesChosen } from '../../../harness/batches/batch-contract.js';
import { loadProfiles, profilesSource } from '../../../harness/load-profiles.js';
import { defaultSweepBatchSize, isApiHarness, ProfileError, selectProfile, type HarnessName, type Profile } from '../../../harness/profiles.js';
import { estimateTokens, minimumCacheableTokens } from '../../../harness/prompt-cache.js';
import { parseRoute, RESULTS_ROUTE } from '../../../review/compare/types.js';
import type { CompareInput } from '../../../review/compare/run-types.js';
import { CRITERION_SELECTIONS } from '../../../review/criteria.js';
import { comparePairs } from '../../../review/run-pairs.js';
import type { CheckedSweep } from './sweep-start.js';
import { ReviewError } from '../../../review/errors.js';
import { UserError } from '../../shared/errors.js';
import { readResultFile } from '../../../review/result-file.js';
import { selectPairs, type PairStatus } from '../../../review/status.js';
import type { SweepInput, SweepUnit } from '../../../review/sweep-types.js';
import { noteToolLists } from '../../../activities/review/sweep/cache-prefix.js';
import { sweepUnits, unitsOf } from '../../../activities/review/sweep/prepare.js';
import { COMPARE_BATCH_SIZE } from '../../../activities/review/compare/prepare.js';
import {
  API_OUTPUT_DEFAULT,
  cliDefault,
  estimateApiRoute,
  estimateCliRoute,
  recordedBasis,
  type Estimate,
  type EstimateRoute,
  type EstimateUnit,
  type RouteEstimate,
  type TokenBasis,
} from '../../../runs/estimate.js';

/** Recorded results read for the mean at most: enough for a stable mean, few enough to stay quick on a large KB. */
const RECORDED_READS = 400;

/** A selection or profile the KB refuses, as the one-line message the run itself would give. */
async function refusedAsUserError<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ReviewError || error instanceof ProfileError) throw new UserError(error.message.split('\n').slice(0, 4).join('\n'));
    throw error;
  }
}

/** The profile a route names, from the file the run would read. */
function profileOf(checkout: string, name: string, profilesFile: string | undefined): Profile {
  const source = profilesSource({ checkout, ...(profilesFile && { file: profilesFile }) });
  return selectProfile(loadProfiles(source), name, source);
}

/** A reader of the checkout's files, each read once. */
function textReader(checkout: string): (path: string) => Promise<string> {
  const texts = new Map<string, Promise<string>>();
  return (path) => {
    let text = texts.get(path);
    if (text === undefined) texts.set(path, (text = readFile(join(checkout, path), 'utf8').catch(() => '')));
    return text;
  };
}

/** Each unit's request as the executor would send it: every input token, and its cached prefix (src/harness/executors/{anthropic,openai}.ts). */
async function requestUnits(checkout: string, units: readonly SweepUnit[], harness: HarnessName): Promise<EstimateUnit[]> {
  const text = textReader(checkout);
  const estimated: EstimateUnit[] = [];
  // A note-first pair on Anthropic offers its note's tools, one per criterion, as the sweep lists them.
  const noteTools = noteToolLists(units, harness);
  for (const unit of units) {
    const criteria: ReviewCriterion[] = [];
    for (const criterion of unit.criteria) criteria.push({ id: criterion.id, text: await text(criterion.path) });
    const report = unit.criteria.every((criterion) => criterion.report);
    const ids = unit.criteria.map((criterion) => criterion.id);
    // The unit's own answer schema (its criteria as an enum), or a note-first pair's note's tools, is Anthropic's tools, ahead of the instruction.
    const tools = unit.criteria.length === 1 && unit.cachePrefix === 'note' ? noteTools.get(unit.note) : undefined;
    const tool = harness === 'anthropic' ? toolTokens(ids, tools, outcomesOf(report)) : 0;
    const fixed = estimateTokens(reviewInstruction) + tool;
    const { shared, unit: rest } = requestParts({
      grouping: unit.criteria.length > 1 ? 'bundle' : 'pair',
      ...(unit.cachePrefix && { prefix: unit.cachePrefix }),
      note: unit.note,
      noteText: await text(unit.note),
      criteria,
      output: 'review.md',
      outcomes: outcomesOf(report),
      refusals: [],
    });
    estimated.push({
      criteria: unit.criteria.length,
      inputTokens: fixed + estimateTokens(shared) + estimateTokens(rest),
      prefix: { key: shared, tokens: cachedPrefixTokens(harness, shared, ids, tools) },
    });
  }
  return estimated;
}

/**
 * Tokens a pair from the checkout's result files of this route: an API route's by its model (any
 * profile of it answers the same request), a CLI route's by its profile. The pairs' own results are
 * read first (a stale pair's last answer), up to RECORDED_READS files.
 */
async function recordedTokens(checkout: string, pairs: readonly PairStatus[], profile: Profile): Promise<TokenBasis | undefined> {
  const api = isApiHarness(profile.harness);
  const matches = (result: { profile: string; model: string }) => (api ? result.model === profile.model : result.profile === profile.name);
  const candidates = pairs.filter((pair) => pair.result !== undefined && matches(pair.result)).slice(0, RECORDED_READS);
  const spends = [];
  for (const pair of candidates) {
    const read = await readResultFile(checkout, pair.note, pair.criterion);
    if (read.ok && read.record.spend !== undefined) spends.push(read.record.spend);
  }
  return recordedBasis(spends, api ? `results of model ${profile.model}` : `results of profile ${profile.name}`);
}

/** Every pair of the KB, for the results recorded anywhere in it (the selection's own notes may have none yet). */
const everyPair = (checkout: string) => selectPairs(checkout, { criteria: CRITERION_SELECTIONS });

/** One route's estimate over the units it would ask, in the order it would ask them. */
async function routeEstimate(
  checkout: string,
  route: EstimateRoute,
  profile: Profile,
  units: readonly SweepUnit[],
  recorded: TokenBasis | undefined,
): Promise<RouteEstimate> {
  if (isApiHarness(profile.harness)) return estimateApiRoute(route, await requestUnits(checkout, units, profile.harness), recorded ?? API_OUTPUT_DEFAULT);
  const grouping = route.grouping === 'bundle' ? 'bundle' : 'pair';
  return estimateCliRoute(
    route,
    units.map((unit) => ({ criteria: unit.criteria.length })),
    recorded ?? cliDefault(profile.harness, grouping, profile.flags.includes('--bare')),
  );
}

const routeOf = (name: string, profile: Profile, grouping: 'pair' | 'bundle', batch: boolean, concurrency: number, batchSize: number): EstimateRoute => {
  const minimum = minimumCacheableTokens(profile.harness, profile.model);
  return {
    name,
    profile: profile.name,
    harness: profile.harness,
    model: profile.model,
    grouping,
    batch,
    concurrency,
    batchSize,
    ...(minimum !== undefined && { minimumCacheable: minimum }),
    ...(profile.cacheTtl && { cacheTtl: profile.cacheTtl }),
    lean: profile.flags.includes('--bare'),
  };
};

/**
 * A sweep's estimate: the stale and missing pairs its check selected, under the profile it resolved,
 * planned into units as prepareSweep plans them (every pair under the sweep's profile).
 */
export const sweepEstimate = (input: SweepInput, checked: CheckedSweep): Promise<Estimate> => refusedAsUserError(() => sweepEstimateOf(input, checked));

async function sweepEstimateOf(input: SweepInput, { profile, asked }: CheckedSweep): Promise<Estimate> {
  const { units, concurrency } = await sweepUnits(input, asked, profile);
  const batch = batchesChosen(input.batch, profile.harness, units.length);
  const route = routeOf(profile.name, profile, input.grouping, batch, concurrency, input.batchSize ?? defaultSweepBatchSize(profile.harness));
  return {
    kind: 'sweep',
    routes: [await routeEstimate(input.checkout, route, profile, units, await recordedTokens(input.checkout, await everyPair(input.checkout), profile))],
  };
}

/** A compare run's estimate: its sample drawn as prepareCompare draws it, each asked route's units in the order it asks them. */
export const compareEstimate = (input: Omit<CompareInput, 'runId'>): Promise<Estimate> => refusedAsUserError(() => compareEstimateOf(input));

async function compareEstimateOf(input: Omit<CompareInput, 'runId'>): Promise<Estimate> {
  const { pairs: sampled } = await comparePairs(input);
  const routes: RouteEstimate[] = [];
  const every = await everyPair(input.checkout);
  for (const name of input.routes.filter((route) => route !== RESULTS_ROUTE)) {
    const parsed = parseRoute(name);
    if (typeof parsed === 'string') throw new Error(parsed);
    const profile = profileOf(input.checkout, parsed.profile, input.profilesFile);
    const units = await unitsOf(input.checkout, sampled, parsed.grouping);
    // A route's units run in child batches of COMPARE_BATCH_SIZE, each at the run's concurrency.
    const route = routeOf(parsed.name, profile, parsed.grouping, parsed.batch, input.concurrency, COMPARE_BATCH_SIZE);
    routes.push(await routeEstimate(input.checkout, route, profile, units, await recordedTokens(input.checkout, every, profile)));
  }
  return { kind: 'compare', routes };
}
