import { ApplicationFailure } from '@temporalio/common';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadProfiles, profilesSource } from '../../harness/load-profiles.js';
import { isApiHarness, selectProfile, type Profile } from '../../harness/profiles.js';
import { reviewPrompt } from '../review/prompt.js';

export interface PrepareProbeInput {
  probeId: string;
  profile: string;
  /** Otherwise the KB's, otherwise the shipped defaults. */
  profilesFile?: string;
  checkout?: string;
  /** Added to the profile's (a fake-harness scenario). */
  env?: Record<string, string>;
}

export interface PreparedProbe {
  profile: Profile;
  dir: string;
  prompt: string;
  outputs: string[];
  /** A model-API probe's note and criterion. */
  files?: Record<string, string>;
}

export const probeOutput = 'probe.md';

/** The API executors answer reviews only: a two-line note against a one-line criterion. */
export const apiProbe = {
  note: { path: 'kb/notes/probe.md', input: 'inputs/note.md', text: '# Probe\n\nThis note exists to check a worker profile.\n' },
  criterion: {
    id: 'probe/has-title',
    input: 'inputs/criteria/probe/has-title.md',
    text: '# Has a title\n\nPass when the note has a title. Give no findings.\n',
  },
  output: 'review.md',
} as const;

function apiProbeLaunch(): { prompt: string; outputs: string[]; files: Record<string, string> } {
  const { note, criterion, output } = apiProbe;
  const unit = { key: 'probe', note: note.path, lens: 'probe', criteria: [{ id: criterion.id, path: criterion.input, report: false }] };
  const prompt = reviewPrompt({ unit, grouping: 'pair', noteInput: note.input, criterionInputs: { [criterion.id]: criterion.input }, output, findings: [] });
  return { prompt, outputs: [output], files: { [note.input]: note.text, [criterion.input]: criterion.text } };
}

/** Small, harmless, and checkable by code (the output must exist). */
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

export function createProbeActivities(dependencies: { stateDir: string }) {
  /** So the workflow's history records the profile and the launch directory. */
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
    if (isApiHarness(profile.harness)) {
      const launch = apiProbeLaunch();
      await writeFile(join(dir, 'prompt.md'), launch.prompt);
      return { profile, dir, ...launch };
    }
    const prompt = probePrompt(probeOutput);
    await writeFile(join(dir, 'prompt.md'), prompt);
    return { profile, dir, prompt, outputs: [probeOutput] };
  }
  return { prepareProbe };
}
