/** Its note and criteria copied into a fresh launch directory, with the prompt and the hashes the answer is checked against. */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Finding } from '../../../kb/findings.js';
import type { CapturedUnit, Grouping, SweepUnit } from '../../../review/sweep-types.js';
import { STATE_ROOT } from '../../../checkout/index.js';
import { reviewPrompt } from '../prompt.js';
import { answerDigest, findAnswer } from './answers.js';
import { readNoteTools } from './cache-prefix.js';
import { badInput, inputsNow } from './inputs.js';
import { REVIEW_OUTPUT, runDirOf } from './run-dir.js';

export interface CaptureUnitInput {
  runId: string;
  checkout: string;
  unit: SweepUnit;
  attempt: number;
  findings: Finding[];
  /** With the capture, its answer key. */
  profile: string;
}

/** `capture.json` in its launch directory: the history carries none of it. */
export type CaptureRecord = Pick<CapturedUnit, 'grouping' | 'outputs' | 'hashes' | 'answer'>;

export const launchDirOf = (checkout: string, runId: string, unit: string, attempt: number) =>
  join(runDirOf(checkout, runId), 'launches', unit, `attempt-${attempt}`);

export async function readCapture(dir: string): Promise<CaptureRecord> {
  return JSON.parse(await readFile(join(dir, 'capture.json'), 'utf8')) as CaptureRecord;
}

/** The worker sees only these copies. An ask the run has answered already (in any execution) comes back `adopted`. */
export async function captureUnit(input: CaptureUnitInput): Promise<CapturedUnit> {
  const captured = await captureInputs(input);
  const recorded = input.unit.reask ? undefined : await findAnswer(input.checkout, input.runId, captured.answer);
  return recorded === undefined ? captured : { ...captured, adopted: recorded.launch };
}

export async function captureInputs(input: CaptureUnitInput): Promise<CapturedUnit> {
  const { unit } = input;
  const dir = launchDirOf(input.checkout, input.runId, unit.key, input.attempt);
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
  const outputs = [REVIEW_OUTPUT];
  const answer = answerDigest({ prompt, hashes, outputs }, input.profile);
  await writeFile(join(dir, 'capture.json'), JSON.stringify({ grouping, outputs, hashes, answer } satisfies CaptureRecord));
  return { dir, prompt, outputs, hashes, grouping, answer, files, launchDir };
}
