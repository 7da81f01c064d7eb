/** The sweep's start: its profile, its selection of pairs, and its units written in batches to the run directory. */
import { Context } from '@temporalio/activity';
import { mkdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../../../fs/atomic.js';
import { loadProfiles, profilesSource } from '../../../harness/load-profiles.js';
import { selectProfile, type Profile } from '../../../harness/profiles.js';
import { selectPairs, type PairStatus } from '../../../review/status.js';
import type { PreparedSweep, SweepInput, SweepUnit } from '../../../review/sweep-types.js';
import { badInput } from './inputs.js';
import { readProblems } from './problems.js';
import { batchFile, problemsFile, runDirOf, staleOnArrivalFile } from './run-dir.js';
import { bundleSizes, planUnits } from './units.js';

function resolveProfile(input: SweepInput): Profile {
  try {
    const source = profilesSource({ checkout: input.checkout, ...(input.profilesFile && { file: input.profilesFile }) });
    const profile = selectProfile(loadProfiles(source), input.profile, source);
    return input.env ? { ...profile, env: { ...profile.env, ...input.env } } : profile;
  } catch (error) {
    throw badInput((error as Error).message);
  }
}

/** Selects the stale and missing pairs (or a finished sweep's problem pairs) and writes them, in batches, to the run directory. */
export async function prepareSweep(input: SweepInput & { runId: string }): Promise<PreparedSweep> {
  const profile = resolveProfile(input);
  if (input.batch === 'always' && profile.harness !== 'anthropic' && profile.harness !== 'openai') {
    throw badInput(`--batch needs a model-API profile (harness anthropic or openai); profile ${profile.name} runs ${profile.harness}: sweep it without --batch`);
  }
  const runDir = runDirOf(input.checkout, input.runId);
  let pairs: PairStatus[];
  try {
    // An input recorded without `criteria` began when sweeps asked gates only: it still selects gates only.
    const selected = await selectPairs(input.checkout, { notes: input.notes, gates: input.gates, criteria: input.criteria ?? ['gates'] });
    if (input.retryOf) {
      const wanted = new Set((await readProblems(runDirOf(input.checkout, input.retryOf))).map((problem) => `${problem.note}\0${problem.criterion}`));
      pairs = selected.filter((pair) => wanted.has(`${pair.note}\0${pair.criterion}`) && pair.status !== 'fresh');
    } else {
      pairs = selected.filter((pair) => pair.status !== 'fresh');
    }
  } catch (error) {
    throw badInput((error as Error).message);
  }
  Context.current().heartbeat({ selected: pairs.length });
  const units = planUnits(pairs, input.grouping, input.grouping === 'bundle' ? await bundleSizes(input.checkout, pairs) : undefined);
  const batches = Math.ceil(units.length / input.batchSize);
  await mkdir(runDir, { recursive: true });
  await writeFileAtomic(join(runDir, 'input.json'), `${JSON.stringify(input, null, 2)}\n`);
  for (let batch = 0; batch < batches; batch++) {
    await writeFileAtomic(batchFile(runDir, batch), JSON.stringify(units.slice(batch * input.batchSize, (batch + 1) * input.batchSize)));
  }
  await writeFileAtomic(problemsFile(runDir), '');
  await rm(staleOnArrivalFile(runDir), { force: true });
  return { runId: input.runId, runDir, profile, pairs: pairs.length, units: units.length, batches };
}

/** Reads one batch's units back, so the history carries a batch number instead of the work list. */
export async function loadBatch(input: { runId: string; checkout: string; batch: number }): Promise<SweepUnit[]> {
  return JSON.parse(await readFile(batchFile(runDirOf(input.checkout, input.runId), input.batch), 'utf8')) as SweepUnit[];
}
