/** The run's captured brief (brief.json: the criteria and instructions it read, by store digest) and the instructions as the checkout has them now. */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { getText } from '../../../fs/store.js';
import { DEFAULT_INSTRUCTIONS, instructionPath, type InstructionName } from '../../../review/edit/instructions.js';
import type { BriefEntry, PreparedAsk } from '../../../review/edit/types.js';
import { launchDir, readJson, writeInput } from './run-files.js';

export const briefFile = (runDir: string) => path.join(runDir, 'brief.json');

export async function readBrief(runDir: string): Promise<BriefEntry[]> {
  return readJson<BriefEntry[]>(briefFile(runDir));
}

/** From the run's store, digest checked. */
export async function briefText(runDir: string, brief: readonly BriefEntry[], file: string): Promise<string> {
  const entry = brief.find((candidate) => candidate.path === file);
  if (!entry) throw new Error(`${file} is not in the run's captured brief`);
  return getText(runDir, entry.sha256);
}

/** A fresh launch directory holding the text asked about and the instruction as the brief captured it. */
export async function noteLaunch(input: { runDir: string; seq: number; textSha256: string }, job: string, instruction: InstructionName): Promise<string> {
  const dir = await launchDir(input.runDir, input.seq, job);
  const brief = await readBrief(input.runDir);
  await writeInput(dir, 'inputs/note.md', await getText(input.runDir, input.textSha256));
  await writeInput(dir, 'inputs/instruction.md', await briefText(input.runDir, brief, instructionPath(instruction)));
  return dir;
}

/** Writes the prompt's lines as the launch's prompt.md. */
export async function promptAsk(dir: string, lines: readonly string[], outputs: string[]): Promise<PreparedAsk> {
  const prompt = lines.join('\n');
  await writeInput(dir, 'prompt.md', prompt);
  return { dir, prompt, outputs };
}

/** The KB's own file, or the shipped default. */
export async function instructionNow(checkout: string, name: InstructionName): Promise<{ path: string; source: 'kb' | 'shipped'; text: string }> {
  const file = instructionPath(name);
  const text = await readFile(path.join(checkout, ...file.split('/')), 'utf8').catch(() => undefined);
  return text === undefined ? { path: file, source: 'shipped', text: DEFAULT_INSTRUCTIONS[name] } : { path: file, source: 'kb', text };
}
