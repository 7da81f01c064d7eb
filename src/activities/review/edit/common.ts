import { ApplicationFailure } from '@temporalio/common';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { loadProfiles, profilesSource } from '../../../harness/load-profiles.js';
import { selectProfile, type Profile } from '../../../harness/profiles.js';
import { writeFileAtomic } from '../../../fs/atomic.js';
import { sha256 } from '../../../fs/digest.js';
import { DEFAULT_INSTRUCTIONS, instructionPath, type InstructionName } from '../../../review/edit/instructions.js';
import { getText } from '../../../fs/store.js';
import type { BriefEntry, EditRunInput } from '../../../review/edit/types.js';
import { approvalKey } from '../../../review/edit/approval-key.js';

/** A request the run cannot carry out as asked: bad input, never retried. */
export function badInput(message: string): ApplicationFailure {
  return ApplicationFailure.create({ type: 'bad-edit-input', nonRetryable: true, message });
}

export function resolveProfile(input: EditRunInput, name: string): Profile {
  try {
    const source = profilesSource({ checkout: input.checkout, ...(input.profilesFile && { file: input.profilesFile }) });
    const profile = selectProfile(loadProfiles(source), name, source);
    return input.env ? { ...profile, env: { ...profile.env, ...input.env } } : profile;
  } catch (error) {
    throw badInput((error as Error).message);
  }
}

export async function readJson<T>(file: string): Promise<T> {
  return JSON.parse(await readFile(file, 'utf8')) as T;
}

export async function writeJson(file: string, value: unknown): Promise<void> {
  await writeFileAtomic(file, `${JSON.stringify(value, null, 2)}\n`);
}

export const briefFile = (runDir: string) => path.join(runDir, 'brief.json');

export async function readBrief(runDir: string): Promise<BriefEntry[]> {
  return readJson<BriefEntry[]>(briefFile(runDir));
}

/** A brief file's captured text (from the run's store, digest checked). */
export async function briefText(runDir: string, brief: readonly BriefEntry[], file: string): Promise<string> {
  const entry = brief.find((candidate) => candidate.path === file);
  if (!entry) throw new Error(`${file} is not in the run's captured brief`);
  return getText(runDir, entry.sha256);
}

/** An instruction as the checkout has it now: the KB's own file, or the shipped default. */
export async function instructionNow(checkout: string, name: InstructionName): Promise<{ path: string; source: 'kb' | 'shipped'; text: string }> {
  const file = instructionPath(name);
  const text = await readFile(path.join(checkout, ...file.split('/')), 'utf8').catch(() => undefined);
  return text === undefined ? { path: file, source: 'shipped', text: DEFAULT_INSTRUCTIONS[name] } : { path: file, source: 'kb', text };
}

/** A fresh launch directory for one ask: numbered, so no two launches of a run share one. */
export async function launchDir(runDir: string, seq: number, job: string): Promise<string> {
  const dir = path.join(runDir, 'launches', `${String(seq).padStart(3, '0')}-${job.replace(/[^A-Za-z0-9._-]+/g, '_')}`);
  await mkdir(path.join(dir, 'inputs'), { recursive: true });
  return dir;
}

/** Writes a captured input into a launch directory. */
export async function writeInput(dir: string, relative: string, text: string): Promise<void> {
  const target = path.join(dir, relative);
  await mkdir(path.dirname(target), { recursive: true });
  await writeFile(target, text);
}

/** A proposal's key (the rule is `approvalKey` in src/review/edit/approval-key.ts), digested with SHA-256. */
export function proposalKey(runId: string, stop: number, file: string, proposalSha256: string, inputs: readonly { path: string; sha256: string }[]): string {
  return approvalKey({ runId, stop, file, proposalSha256, inputs }, sha256);
}
