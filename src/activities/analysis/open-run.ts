/** A run's opening: what the workflow keeps for the run (parameters, plan, profile), and its frozen source. */
import { Context } from '@temporalio/activity';
import path from 'node:path';
import { loadPlan, PlanError } from '../../analysis/load-plan.js';
import type { FrozenSource } from '../../analysis/progress.js';
import { loadProfiles, profilesSource } from '../../harness/load-profiles.js';
import { selectProfile } from '../../harness/profiles.js';
import { packageRoot } from '../../paths.js';
import { failure, guarded } from './failures.js';
import { readParameters } from './runs.js';
import { freezeSource } from './source.js';
import type { OpenedRun, OpenRunInput } from './types.js';

/** Reads the run's parameters, loads its plan from the worktree and resolves its profile: what the workflow keeps for the run. */
export async function openAnalysis(input: OpenRunInput): Promise<OpenedRun> {
  const parameters = await readParameters(input.runDir).catch((error: Error) => {
    throw failure('bad-run', error.message);
  });
  if (path.resolve(parameters.worktree) !== path.resolve(input.worktree)) {
    throw failure('bad-run', `${input.runDir}/parameters.json belongs to the worktree ${parameters.worktree}, not ${input.worktree}`);
  }
  const plan = await loadPlan(input.worktree, parameters.plan).catch((error: Error) => {
    throw failure('bad-plan', error instanceof PlanError ? error.message : `plan ${parameters.plan}: ${error.message}`);
  });
  let profile;
  try {
    const source = profilesSource({ checkout: input.worktree, ...(input.profilesFile && { file: input.profilesFile }) });
    profile = selectProfile(loadProfiles(source), parameters.profile, source);
  } catch (error) {
    throw failure('bad-profile', (error as Error).message);
  }
  if (input.env) profile = { ...profile, env: { ...profile.env, ...input.env } };
  const command = `${process.execPath} ${path.join(packageRoot(), 'bin', 'commonplace.js')}`;
  return { parameters, plan, profile, command };
}

/** Freezes the run's source into its capture directory (or checks the one frozen before). */
export async function acquireSource(input: { runDir: string }): Promise<FrozenSource> {
  const parameters = await readParameters(input.runDir);
  const context = Context.current();
  return guarded(input.runDir, () => freezeSource(parameters, input.runDir, () => context.heartbeat()));
}
