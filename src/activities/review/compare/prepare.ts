/**
 * A compare run's start: its routes' profiles, its sample drawn from the KB's pairs, each asked
 * route's units written in batches (as a sweep's), and the `results` route's verdicts read from the
 * KB's fresh result files, never asked.
 */
import { Context } from '@temporalio/activity';
import { mkdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../../../fs/atomic.js';
import { loadProfiles, profilesSource } from '../../../harness/load-profiles.js';
import { selectProfile, type Profile } from '../../../harness/profiles.js';
import { readResultFile } from '../../../review/result-file.js';
import { COMPARE_RUN_FILE, parseRoute, RESULTS_ROUTE, type CompareRunFile, type CompareSample, type RouteVerdict } from '../../../review/compare/types.js';
import type { CompareInput, PreparedCompare, PreparedRoute } from '../../../review/compare/run-types.js';
import { routeVerdict } from '../../../review/compare/verdict-record.js';
import { comparePairs } from '../../../review/run-pairs.js';
import type { PairStatus } from '../../../review/status.js';
import { badInput } from '../sweep/inputs.js';
import { batchFile, problemsFile, profilesFile, runDirOf } from '../sweep/run-dir.js';
import { unitsOf } from '../sweep/prepare.js';
import { askRunIdOf, compareRunDir, sampleFile } from './run-dir.js';
import { writeVerdicts } from './verdicts.js';

/** Units per batch of a route (a compare sample is small; a batch child per this many launches). */
export const COMPARE_BATCH_SIZE = 100;

function profiles(input: CompareInput): { all: Map<string, Profile>; source: string } {
  try {
    const source = profilesSource({ checkout: input.checkout, ...(input.profilesFile && { file: input.profilesFile }) });
    return { all: loadProfiles(source), source };
  } catch (error) {
    throw badInput((error as Error).message);
  }
}

/** The `results` route: each sampled pair's fresh result file, as a verdict (its executor is its profile's harness where the profile is known). */
async function resultsVerdicts(input: CompareInput, sampled: readonly PairStatus[], known: Map<string, Profile>): Promise<RouteVerdict[]> {
  const verdicts: RouteVerdict[] = [];
  for (const pair of sampled) {
    if (pair.status !== 'fresh') continue;
    const read = await readResultFile(input.checkout, pair.note, pair.criterion);
    if (!read.ok || read.record.outcome === 'report') continue;
    const { record } = read;
    verdicts.push(
      routeVerdict({
        route: RESULTS_ROUTE,
        note: pair.note,
        criterion: pair.criterion,
        verdict: record.outcome as Exclude<typeof record.outcome, 'report'>,
        review: record.body,
        executor: known.get(record.profile)?.harness ?? record.profile,
        model: record.model === 'unreported' ? null : record.model,
        spend: record.spend,
        hashes: { note: record.noteSha256, criterion: record.criterionSha256 },
      }),
    );
  }
  return verdicts;
}

/** Draws the sample, writes it, and prepares every route: asked routes get their units in batches, `results` its verdicts at once. */
export async function prepareCompare(input: CompareInput): Promise<PreparedCompare> {
  const { all, source } = profiles(input);
  const routes = input.routes.map((name) => {
    const route = parseRoute(name);
    if (typeof route === 'string') throw badInput(route);
    return route;
  });
  const asked = routes.filter((route) => route.name !== RESULTS_ROUTE);
  const resolved = new Map<string, Profile>();
  for (const route of asked) {
    try {
      const profile = selectProfile(all, route.profile, source);
      if (route.batch && profile.harness !== 'anthropic' && profile.harness !== 'openai')
        throw new Error(
          `a batched route needs a model-API profile (harness anthropic or openai); profile ${profile.name} runs ${profile.harness}: name it without :batch`,
        );
      resolved.set(route.name, input.env ? { ...profile, env: { ...profile.env, ...input.env } } : profile);
    } catch (error) {
      throw badInput(`route ${route.name}: ${(error as Error).message}`);
    }
  }
  const runDir = compareRunDir(input.checkout, input.runId);
  await mkdir(runDir, { recursive: true });
  // An execution starts with no verdicts: a run of this ID that was cancelled before leaves none behind to mix with this one's.
  await rm(join(runDir, 'answers'), { recursive: true, force: true });
  await rm(join(runDir, 'verdicts'), { recursive: true, force: true });
  // A run prepared before (a replayed prepare): its sample is kept as drawn.
  const drawn = await readFile(sampleFile(runDir), 'utf8').then(
    (text) => JSON.parse(text) as CompareSample,
    () => undefined,
  );
  const { sample, pairs: sampled } = await comparePairs(input, drawn).catch((error: Error) => {
    throw badInput(error.message);
  });
  if (sample.pairs.length === 0)
    throw badInput(
      `${input.notes.join(' ') || 'every note'} × ${input.criteria.join(' ') || 'every criterion'}: no (note, criterion) pair to compare (report criteria are never compared)`,
    );
  await writeFileAtomic(sampleFile(runDir), `${JSON.stringify(sample, null, 2)}\n`);
  await writeFileAtomic(join(runDir, 'input.json'), `${JSON.stringify(input, null, 2)}\n`);
  const run: CompareRunFile = { runId: input.runId, routes: routes.map((route) => route.name), reference: input.reference ?? routes[0]!.name };
  await writeFileAtomic(join(runDir, COMPARE_RUN_FILE), `${JSON.stringify(run, null, 2)}\n`);
  Context.current().heartbeat({ sampled: sample.pairs.length });

  const prepared: PreparedRoute[] = [];
  for (const route of asked) {
    const units = await unitsOf(input.checkout, sampled, route.grouping);
    const askRunId = askRunIdOf(input.runId, route.name);
    const askDir = runDirOf(input.checkout, askRunId);
    const batches = Math.ceil(units.length / COMPARE_BATCH_SIZE);
    for (let batch = 0; batch < batches; batch++) {
      await writeFileAtomic(batchFile(askDir, batch), JSON.stringify(units.slice(batch * COMPARE_BATCH_SIZE, (batch + 1) * COMPARE_BATCH_SIZE)));
    }
    await writeFileAtomic(problemsFile(askDir), '');
    await writeFileAtomic(profilesFile(askDir), JSON.stringify({ [resolved.get(route.name)!.name]: resolved.get(route.name)! }));
    prepared.push({ route: route.name, askRunId, profile: resolved.get(route.name)!, pairs: sampled.length, units: units.length, batches });
  }
  const read: PreparedCompare['read'] = [];
  if (routes.some((route) => route.name === RESULTS_ROUTE)) {
    const verdicts = await resultsVerdicts(input, sampled, all);
    await writeVerdicts(runDir, RESULTS_ROUTE, verdicts);
    read.push({ route: RESULTS_ROUTE, pairs: verdicts.length });
  }
  return { runId: input.runId, runDir, sampleSize: sample.pairs.length, asked: prepared, read };
}
