/** The sweep's start: its profile, its selection of pairs, and its units written in batches to the run directory. */
import { Context } from '@temporalio/activity';
import { mkdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../../../fs/atomic.js';
import { loadProfiles, profilesSource } from '../../../harness/load-profiles.js';
import { defaultSweepBatchSize, defaultSweepConcurrency, isApiHarness, selectProfile, type Profile } from '../../../harness/profiles.js';
import { sweepPairs } from '../../../review/run-pairs.js';
import type { PairStatus } from '../../../review/status.js';
import type { Grouping, PreparedSweep, SweepInput, SweepUnit } from '../../../review/sweep-types.js';
import { adoptAnswersOf } from './answers.js';
import { badInput } from './inputs.js';
import { readProblems } from './problems.js';
import { batchFile, problemsFile, profilesFile, runDirOf, staleOnArrivalFile } from './run-dir.js';
import { planCachePrefixes, writeNoteTools } from './cache-prefix.js';
import { routeCriteria, writeRouting, type SweepRouting } from './routing.js';
import { bundleSizes, orderForCache, planUnits } from './units.js';

/** The sweep's profile and every profile of its file (the ones per-criterion routing may choose), the run's env added. */
function resolveProfile(input: SweepInput): { profile: Profile; profiles: Map<string, Profile>; definitions: Map<string, Profile> } {
  try {
    const source = profilesSource({ checkout: input.checkout, ...(input.profilesFile && { file: input.profilesFile }) });
    const profiles = loadProfiles(source);
    const withEnv = (profile: Profile): Profile => (input.env ? { ...profile, env: { ...profile.env, ...input.env } } : profile);
    return {
      profile: withEnv(selectProfile(profiles, input.profile, source)),
      profiles: new Map([...profiles].map(([name, profile]) => [name, withEnv(profile)])),
      definitions: profiles,
    };
  } catch (error) {
    throw badInput((error as Error).message);
  }
}

/** Pairs planned into units of the grouping, a bundle within its size cap: the one plan of a sweep, a compare route and their estimates. */
export async function unitsOf(checkout: string, pairs: PairStatus[], grouping: Grouping): Promise<SweepUnit[]> {
  return planUnits(pairs, grouping, grouping === 'bundle' ? await bundleSizes(checkout, pairs) : undefined);
}

/** The units of each chosen profile planned apart (a bundle never mixes profiles); a unit of another profile names it and keys apart. */
async function routedUnits(input: SweepInput, pairs: PairStatus[], routing: SweepRouting | undefined): Promise<{ units: SweepUnit[]; chosen: string[] }> {
  if (routing === undefined) return { units: await unitsOf(input.checkout, pairs, input.grouping), chosen: [] };
  const profileOf = new Map(routing.choices.map((choice) => [choice.criterion, choice.profile]));
  const groups = new Map<string, PairStatus[]>();
  for (const pair of pairs) {
    const name = profileOf.get(pair.criterion) ?? input.profile;
    groups.set(name, [...(groups.get(name) ?? []), pair]);
  }
  const units: SweepUnit[] = [];
  for (const [name, some] of groups) {
    for (const unit of await unitsOf(input.checkout, some, input.grouping))
      units.push(name === input.profile ? unit : { ...unit, key: `${unit.key}.via-${name}`, profile: name });
  }
  return { units, chosen: [...groups.keys()].filter((name) => name !== input.profile) };
}

/**
 * A sweep's units in the order it asks them, and its concurrency: on a model API each unit's cached
 * prefix is chosen and units sharing one run together (docs/harnesses.md, "Prompt caching"). A sweep
 * whose criteria were routed to other profiles keeps its units as planned: the prefixes are planned for
 * one profile's requests. The estimate plans the same way, unrouted.
 */
export async function sweepUnits(input: SweepInput, pairs: PairStatus[], profile: Profile, routing?: SweepRouting) {
  const { units: planned, chosen } = await routedUnits(input, pairs, routing);
  const prefixed = chosen.length === 0 && isApiHarness(profile.harness) ? await planCachePrefixes(input.checkout, planned, profile) : undefined;
  const concurrency = input.concurrency ?? defaultSweepConcurrency(profile.harness);
  return { units: prefixed ? orderForCache(prefixed.units, concurrency) : planned, chosen, concurrency, cache: prefixed?.report };
}

/** Selects the stale and missing pairs (or a finished sweep's problem pairs) and writes them, in batches, to the run directory. */
export async function prepareSweep(input: SweepInput & { runId: string }): Promise<PreparedSweep> {
  const { profile, profiles, definitions } = resolveProfile(input);
  if (input.batch === 'always' && profile.harness !== 'anthropic' && profile.harness !== 'openai') {
    throw badInput(
      `--batch needs a model-API profile (harness anthropic or openai); profile ${profile.name} runs ${profile.harness}: sweep it without --batch`,
    );
  }
  const runDir = runDirOf(input.checkout, input.runId);
  let pairs: PairStatus[];
  try {
    pairs = (await sweepPairs(input, input.retryOf ? await readProblems(runDirOf(input.checkout, input.retryOf)) : undefined)).asked;
  } catch (error) {
    throw badInput((error as Error).message);
  }
  Context.current().heartbeat({ selected: pairs.length });
  const routing = await routeCriteria({
    checkout: input.checkout,
    profile,
    profiles: definitions,
    grouping: input.grouping,
    criteria: pairs.map((pair) => pair.criterion),
  });
  const { units, chosen, concurrency, cache } = await sweepUnits(input, pairs, profile, routing);
  const batchSize = input.batchSize ?? defaultSweepBatchSize(profile.harness);
  const batches = Math.ceil(units.length / batchSize);
  await mkdir(runDir, { recursive: true });
  // A retry is the same work asked again: the answers its origin was paid for are judged again, not asked again.
  if (input.retryOf) await adoptAnswersOf(input.checkout, input.runId, input.retryOf);
  if (routing !== undefined) await writeRouting(runDir, routing);
  await writeFileAtomic(join(runDir, 'input.json'), `${JSON.stringify(input, null, 2)}\n`);
  for (let batch = 0; batch < batches; batch++) {
    await writeFileAtomic(batchFile(runDir, batch), JSON.stringify(units.slice(batch * batchSize, (batch + 1) * batchSize)));
  }
  // A note-first pair on Anthropic offers its note's tools, one per criterion: each capture reads its note's list (units planned without prefixes have none).
  await writeNoteTools(runDir, units, profile.harness);
  await writeFileAtomic(problemsFile(runDir), '');
  await rm(staleOnArrivalFile(runDir), { force: true });
  const others = chosen.flatMap((name) => (profiles.has(name) ? [[name, profiles.get(name) as Profile] as const] : []));
  await writeFileAtomic(profilesFile(runDir), JSON.stringify(Object.fromEntries([[profile.name, profile], ...others])));
  return {
    runId: input.runId,
    runDir,
    profile,
    ...(others.length > 0 && { profiles: Object.fromEntries(others) }),
    pairs: pairs.length,
    units: units.length,
    batches,
    ...(cache && { cachePrefixes: cache }),
    concurrency,
  };
}

/** Reads one batch's units back, so the history carries a batch number instead of the work list. */
export async function loadBatch(input: { runId: string; checkout: string; batch: number }): Promise<SweepUnit[]> {
  return JSON.parse(await readFile(batchFile(runDirOf(input.checkout, input.runId), input.batch), 'utf8')) as SweepUnit[];
}
