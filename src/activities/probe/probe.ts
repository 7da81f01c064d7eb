import { ApplicationFailure } from '@temporalio/common';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadProfiles, profilesSource } from '../../harness/load-profiles.js';
import { selectProfile, type Profile } from '../../harness/profiles.js';

export interface PrepareProbeInput {
  probeId: string;
  profile: string;
  /** An explicit profiles file; otherwise the KB's, otherwise the shipped defaults. */
  profilesFile?: string;
  checkout?: string;
  /** Environment added to the profile's (a fake-harness scenario, for instance). */
  env?: Record<string, string>;
}

export interface PreparedProbe {
  profile: Profile;
  dir: string;
  prompt: string;
  outputs: string[];
}

export const probeOutput = 'probe.md';

/** The probe's instruction: small, harmless, and checkable by code (the output must exist). */
export function probePrompt(output: string): string {
  return [
    'This is a probe of a commonplace worker profile. Do not read or change any other file.',
    `Write a file named ${output} in the current directory containing one line: "probe ok".`,
    'Then stop.',
    '',
    'job = probe',
    `output = ${output}`,
    '',
  ].join('\n');
}

/** Builds the probe activities over the directory that holds run state (`.commonplace/`). */
export function createProbeActivities(dependencies: { stateDir: string }) {
  /** Resolves the profile and prepares the probe's launch directory, so the workflow's history records both. */
  async function prepareProbe(input: PrepareProbeInput): Promise<PreparedProbe> {
    let profile: Profile;
    try {
      const source = profilesSource({ ...(input.profilesFile && { file: input.profilesFile }), ...(input.checkout && { checkout: input.checkout }) });
      profile = selectProfile(loadProfiles(source), input.profile, source);
    } catch (error) {
      throw ApplicationFailure.create({ type: 'bad-profile', nonRetryable: true, message: (error as Error).message });
    }
    if (input.env) profile = { ...profile, env: { ...profile.env, ...input.env } };
    const dir = join(dependencies.stateDir, 'probes', input.probeId.replace(/[^A-Za-z0-9._-]+/g, '_'));
    await mkdir(dir, { recursive: true });
    const prompt = probePrompt(probeOutput);
    await writeFile(join(dir, 'prompt.md'), prompt);
    return { profile, dir, prompt, outputs: [probeOutput] };
  }
  return { prepareProbe };
}
