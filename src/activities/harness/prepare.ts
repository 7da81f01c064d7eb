import { ApplicationFailure } from '@temporalio/common';
import { join } from 'node:path';
import type { CliExecutor, LaunchFiles } from '../../harness/executor.js';
import { harnessEnv } from '../../harness/executors/index.js';
import { prepareStartupFile, ProfileEnvError, resolveProfile } from '../../harness/launch-env.js';
import type { Profile } from '../../harness/profiles.js';

export interface PreparedLaunch {
  /** The profile with `${NAME}` references resolved from this worker's environment. */
  profile: Profile;
  /** What the launch adds to the worker's environment (execa merges it over process.env). */
  env: Record<string, string>;
  files: LaunchFiles;
}

/**
 * Resolves a profile on this worker and writes what its CLI reads besides flags (the executor's own,
 * such as pi's per-launch agent directory, and claude's joined startup files) under the launch's state directory.
 */
export async function prepareLaunch(
  executor: CliExecutor,
  profile: Profile,
  dir: string,
  stateDir: string,
  processEnv: NodeJS.ProcessEnv = process.env,
): Promise<PreparedLaunch> {
  try {
    const resolved = resolveProfile(profile, processEnv);
    const env = { ...harnessEnv(resolved), ...(await executor.prepare?.(resolved, { dir, stateDir, processEnv })) };
    const startupFile = await prepareStartupFile(resolved, dir, join(dir, stateDir, 'startup.md'));
    return { profile: resolved, env, files: startupFile === undefined ? {} : { startupFile: join(stateDir, 'startup.md') } };
  } catch (error) {
    // A profile naming a variable this worker lacks fails the same on every try.
    if (!(error instanceof ProfileEnvError)) throw error;
    throw ApplicationFailure.create({ type: 'bad-launch-input', nonRetryable: true, message: error.message });
  }
}
