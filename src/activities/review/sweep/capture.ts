/** A unit's capture: its note and criteria copied into a fresh launch directory, with the prompt and the hashes the answer is checked against. */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Finding } from '../../../kb/findings.js';
import type { CapturedUnit, Grouping, SweepUnit } from '../../../review/sweep-types.js';
import { STATE_ROOT } from '../../../places.js';
import { reviewPrompt } from '../prompt.js';
import { readNoteTools } from './cache-prefix.js';
import { badInput, inputsNow } from './inputs.js';
import { REVIEW_OUTPUT, runDirOf } from './run-dir.js';

export interface CaptureUnitInput {
  runId: string;
  checkout: string;
  unit: SweepUnit;
  attempt: number;
  findings: Finding[];
}

/** Copies one unit's note and criteria into a fresh launch directory and records their hashes: the worker sees only these copies. */
export async function captureUnit(input: CaptureUnitInput): Promise<CapturedUnit> {
  const { unit } = input;
  const dir = join(runDirOf(input.checkout, input.runId), 'launches', unit.key, `attempt-${input.attempt}`);
  // A run ID names its selection, so a later sweep of the same selection reuses this directory: start it empty.
  await rm(dir, { recursive: true, force: true });
  await mkdir(join(dir, 'inputs'), { recursive: true });
  const now = await inputsNow(input.checkout, unit);
  if (!now) throw badInput(`note ${unit.note} is gone`);
  await writeFile(join(dir, 'inputs', 'note.md'), now.noteText);
  const hashes: CapturedUnit['hashes'] = {};
  const criterionInputs: Record<string, string> = {};
  const files: Record<string, string> = { [join('inputs', 'note.md')]: now.noteText };
  for (const criterion of unit.criteria) {
    const read = now.criteria.get(criterion.id);
    if (!read) throw badInput(`criterion ${criterion.id} (${criterion.path}) is gone or no longer a criterion`);
    const relative = join('inputs', 'criteria', `${criterion.id.replace(/\.md$/, '')}.md`);
    await mkdir(join(dir, relative, '..'), { recursive: true });
    await writeFile(join(dir, relative), read.text);
    files[relative] = read.text;
    criterionInputs[criterion.id] = relative;
    hashes[criterion.id] = read.hashes;
  }
  // A unit of several gates is asked as a bundle; a bundle re-asked for one gate is asked as a pair.
  const grouping: Grouping = unit.criteria.length > 1 ? 'bundle' : 'pair';
  // A note-first pair on Anthropic: its note's tools, as the sweep listed them at prepare time.
  const noteTools = grouping === 'pair' && unit.cachePrefix === 'note' ? await readNoteTools(runDirOf(input.checkout, input.runId), unit.note) : undefined;
  const prompt = reviewPrompt({
    unit,
    grouping,
    noteInput: join('inputs', 'note.md'),
    criterionInputs,
    output: REVIEW_OUTPUT,
    findings: input.findings,
    ...(noteTools && { noteTools }),
  });
  await writeFile(join(dir, 'prompt.md'), prompt);
  // The launch carries these copies and runs under its own worker's state: any worker can run it.
  const launchDir = `${STATE_ROOT}/review/${input.runId}/${unit.key}/attempt-${input.attempt}`;
  files['prompt.md'] = prompt;
  return { dir, prompt, outputs: [REVIEW_OUTPUT], hashes, grouping, files, launchDir };
}
