import { ApplicationFailure } from '@temporalio/common';
import { join } from 'node:path';
import type { LaunchFiles } from '../../harness/command.js';
import { harnessEnv, preparePiAgentDir, prepareStartupFile, ProfileEnvError, resolveProfile } from '../../harness/launch-env.js';
import type { Profile } from '../../harness/profiles.js';

export interface PreparedLaunch {
  /** The profile with `${NAME}` references resolved from this worker's environment. */
  profile: Profile;
  /** What the launch adds to the worker's environment (execa merges it over process.env). */
  env: Record<string, string>;
  files: LaunchFiles;
}

/**
 * Resolves a profile on this worker and writes what its CLI reads besides flags: pi's per-launch agent
 * directory and claude's joined startup files, under the launch's state directory.
 */
export async function prepareLaunch(profile: Profile, dir: string, stateDir: string, processEnv: NodeJS.ProcessEnv = process.env): Promise<PreparedLaunch> {
  let resolved: Profile;
  try {
    resolved = resolveProfile(profile, processEnv);
  } catch (error) {
    if (!(error instanceof ProfileEnvError)) throw error;
    throw ApplicationFailure.create({ type: 'bad-launch-input', nonRetryable: true, message: error.message });
  }
  const env = harnessEnv(resolved);
  const files: LaunchFiles = {};
  if (resolved.harness === 'pi') {
    try {
      env.PI_CODING_AGENT_DIR = await preparePiAgentDir(resolved, join(dir, stateDir, 'pi-agent'), { ...processEnv, ...resolved.env });
    } catch (error) {
      if (!(error instanceof ProfileEnvError)) throw error;
      throw ApplicationFailure.create({ type: 'bad-launch-input', nonRetryable: true, message: error.message });
    }
  }
  const startupFile = await prepareStartupFile(resolved, dir, join(dir, stateDir, 'startup.md'));
  if (startupFile !== undefined) files.startupFile = join(stateDir, 'startup.md');
  return { profile: resolved, env, files };
}
