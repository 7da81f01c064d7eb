/**
 * Inputs checked in the client before anything starts, so a mistake is a one-line error and no
 * workflow is started to fail on it: the worker profile resolves in the profiles file that applies,
 * its CLI is installed, `--batch` names a model-API profile, and a fake-harness scenario file exists.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { missingHarness } from '../../harness/installed.js';
import { loadProfiles, profilesSource } from '../../harness/load-profiles.js';
import { ProfileError, selectProfile, type Profile } from '../../harness/profiles.js';
import { packageRoot } from '../../paths.js';
import { UserError } from './errors.js';

export interface LaunchInputs {
  checkout?: string;
  profile: string;
  profilesFile?: string;
  env?: Record<string, string>;
}

/** The profile a command names, resolved in the profiles file that applies; a scenario file it names exists. */
export function checkLaunchInputs(input: LaunchInputs): Profile {
  const source = profilesSource({ ...(input.checkout && { checkout: input.checkout }), ...(input.profilesFile && { file: input.profilesFile }) });
  let profile: Profile;
  try {
    profile = selectProfile(loadProfiles(source), input.profile, source);
  } catch (error) {
    if (error instanceof ProfileError) throw new UserError(error.message.split('\n').slice(0, 4).join('\n'));
    throw error;
  }
  const scenario = input.env?.['COMMONPLACE_FAKE_SCENARIO'];
  if (scenario !== undefined && !existsSync(scenario)) throw new UserError(`--scenario ${scenario}: no such file`);
  return profile;
}

/**
 * A sweep's launches checked before it starts: the profile's CLI is installed (as `analysis prepare`
 * checks it: on this host's PATH, or the profile's own `env.PATH`) and `--batch` names a model-API
 * profile. Each refusal is one line; nothing is started or written. The profile is returned, as the run would read it.
 */
export function checkSweepLaunches(input: LaunchInputs & { batch?: string }): Profile {
  const profile = checkLaunchInputs(input);
  if (input.batch === 'always' && profile.harness !== 'anthropic' && profile.harness !== 'openai')
    throw new UserError(
      `--batch needs a model-API profile (harness anthropic or openai); profile ${profile.name} runs ${profile.harness}: sweep it without --batch, or name an API profile with --profile; nothing was started`,
    );
  const missing = missingHarness(profile, path.join(packageRoot(), 'bin', 'fake-harness.js'));
  if (missing !== undefined) throw new UserError(`${missing}; nothing was started`);
  return profile;
}
