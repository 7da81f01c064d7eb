/**
 * Inputs checked in the client before anything starts, so a mistake is a one-line error and no
 * workflow is started to fail on it: the worker profile resolves in the profiles file that applies,
 * and a fake-harness scenario file exists.
 */
import { existsSync } from 'node:fs';
import { loadProfiles, profilesSource } from '../../harness/load-profiles.js';
import { ProfileError, selectProfile } from '../../harness/profiles.js';
import { UserError } from './errors.js';

export function checkLaunchInputs(input: { checkout?: string; profile: string; profilesFile?: string; env?: Record<string, string> }): void {
  const source = profilesSource({ ...(input.checkout && { checkout: input.checkout }), ...(input.profilesFile && { file: input.profilesFile }) });
  try {
    selectProfile(loadProfiles(source), input.profile, source);
  } catch (error) {
    if (error instanceof ProfileError) throw new UserError(error.message.split('\n').slice(0, 4).join('\n'));
    throw error;
  }
  const scenario = input.env?.['COMMONPLACE_FAKE_SCENARIO'];
  if (scenario !== undefined && !existsSync(scenario)) throw new UserError(`--scenario ${scenario}: no such file`);
}
