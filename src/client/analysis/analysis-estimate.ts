/** `analysis run --estimate`: the plan's roles under its profile, at what launches of the recorded runs beside it spent. Writes nothing, asks no server. */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { loadPlan } from '../../analysis/load-plan.js';
import type { AnalysisProgress } from '../../analysis/progress.js';
import { LENSES } from '../../analysis/roles.js';
import { runRecordFile, RUN_STATE } from '../../analysis/run-dir.js';
import type { LocatedRun } from '../../activities/analysis/runs.js';
import { loadProfiles, profilesSource } from '../../harness/load-profiles.js';
import { ProfileError, selectProfile } from '../../harness/profiles.js';
import { UserError } from '../shared/errors.js';
import { ANALYSIS_DEFAULT, estimateAnalysis, type Estimate, type TokenBasis } from '../../runs/estimate.js';

/** Each worktree's under the same root. */
async function recordedRuns(worktree: string): Promise<AnalysisProgress[]> {
  const root = path.dirname(worktree);
  const records: AnalysisProgress[] = [];
  for (const tree of await readdir(root).catch(() => [] as string[])) {
    const runs = path.join(root, tree, RUN_STATE, 'analysis');
    for (const run of await readdir(runs).catch(() => [] as string[])) {
      const text = await readFile(runRecordFile(path.join(runs, run)), 'utf8').catch(() => undefined);
      if (text === undefined) continue;
      try {
        records.push(JSON.parse(text) as AnalysisProgress);
      } catch {
        // A record being written, or not a record: it says nothing about cost.
      }
    }
  }
  return records;
}

/** Undefined when no recorded run of this profile launched. */
function recordedBasis(records: readonly AnalysisProgress[], profile: string): TokenBasis | undefined {
  const spent = records.filter((record) => record.profile === profile && (record.spend?.launches ?? 0) > 0 && record.spend?.tokens !== undefined);
  const launches = spent.reduce((sum, record) => sum + record.spend!.launches, 0);
  if (launches === 0) return undefined;
  const total = (pick: (tokens: NonNullable<AnalysisProgress['spend']>['tokens']) => number) =>
    spent.reduce((sum, record) => sum + pick(record.spend!.tokens), 0) / launches;
  const cacheRead = total((tokens) => tokens.cacheRead);
  return {
    // Input as recorded: Anthropic's excludes the cache's tokens; a CLI that counts them in (codex) is read as uncached, an upper bound.
    input: total((tokens) => tokens.input),
    cacheRead,
    cacheWrite: total((tokens) => tokens.cacheWrite),
    output: total((tokens) => tokens.output),
    from: 'recorded',
    samples: launches,
    source: `recorded analysis runs of profile ${profile}`,
  };
}

/** One launch per role, at the recorded mean or the default. */
export async function analysisEstimate(run: LocatedRun, profilesFile: string | undefined): Promise<Estimate> {
  const plan = await loadPlan(run.worktree, run.parameters.plan);
  const source = profilesSource({ checkout: run.worktree, ...(profilesFile && { file: profilesFile }) });
  let profile;
  try {
    profile = selectProfile(loadProfiles(source), run.parameters.profile, source);
  } catch (error) {
    if (error instanceof ProfileError) throw new UserError(error.message.split('\n').slice(0, 4).join('\n'));
    throw error;
  }
  const roles = Object.values(plan.roles);
  const basis =
    recordedBasis(await recordedRuns(run.worktree), profile.name) ??
    (profile.harness === 'fake' ? { ...ANALYSIS_DEFAULT, cacheRead: 0, cacheWrite: 0, output: 0 } : ANALYSIS_DEFAULT);
  const route = {
    name: profile.name,
    profile: profile.name,
    harness: profile.harness,
    model: profile.model,
    grouping: 'pair' as const,
    batch: false,
    concurrency: 1,
  };
  const estimate = estimateAnalysis(
    route,
    {
      roles: roles.length,
      parallel: roles.filter((role) => (LENSES as readonly string[]).includes(role.name)).length,
      attempts: roles.reduce((sum, role) => sum + role.attempts, 0),
    },
    basis,
  );
  return { kind: 'analysis', routes: [estimate] };
}
