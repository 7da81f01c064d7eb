import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Finding } from '../../../kb/findings.js';
import { TypeRegistry } from '../../../kb/type-registry.js';
import { checkEditBounds } from '../../../review/edit/bounds.js';
import { checkDecision, sameText } from '../../../review/edit/decision.js';
import { instructionPath } from '../../../review/edit/instructions.js';
import { getText, put } from '../../../fs/store.js';
import type { PreparedAsk, ReviewRecord } from '../../../review/edit/types.js';
import { CRITIQUE_INSTRUCTION } from '../../../review/paths.js';
import { findingsBlock } from '../prompt.js';
import { briefText, readBrief } from './brief.js';
import { launchDir, writeInput } from './run-files.js';

export const EDITED_OUTPUT = 'edited.md';
export const DECISION_OUTPUT = 'decision.md';

export interface EditAskInput {
  runId: string;
  runDir: string;
  note: string;
  textSha256: string;
  /** The reviews of this text: the gates' and the critique's. */
  reviews: ReviewRecord[];
  direction: string | null;
  seq: number;
  findings: Finding[];
}

/** The reviews as one input file for the editor: each gate's review under its ID and outcome. */
async function reviewsInput(runDir: string, reviews: readonly ReviewRecord[]): Promise<string> {
  const sections = ['# Reviews of the note', ''];
  const order = { fail: 0, warn: 1, pass: 2, report: 3 } as const;
  for (const review of [...reviews]
    .filter((entry) => entry.criterion !== CRITIQUE_INSTRUCTION)
    .sort((a, b) => order[a.outcome] - order[b.outcome] || (a.criterion < b.criterion ? -1 : 1))) {
    sections.push(`## ${review.criterion} — ${review.outcome}`, '', (await getText(runDir, review.bodySha256)).trim(), '');
  }
  return `${sections.join('\n')}\n`;
}

/** Prepares the full pass's editor launch: the text, its reviews, the critique and the editing instruction. */
export async function prepareEditAsk(input: EditAskInput): Promise<PreparedAsk> {
  const dir = await launchDir(input.runDir, input.seq, 'edit');
  const brief = await readBrief(input.runDir);
  await writeInput(dir, 'inputs/note.md', await getText(input.runDir, input.textSha256));
  await writeInput(dir, 'inputs/instruction.md', await briefText(input.runDir, brief, instructionPath('edit-note')));
  await writeInput(dir, 'inputs/reviews.md', await reviewsInput(input.runDir, input.reviews));
  const critique = input.reviews.find((review) => review.criterion === CRITIQUE_INSTRUCTION);
  await writeInput(dir, 'inputs/critique.md', critique ? await getText(input.runDir, critique.bodySha256) : 'No critique was asked.\n');
  const prompt = [
    'Follow the instruction in the instruction input to decide whether the note needs an edit, and make it.',
    'The reviews input holds the review of the note by each review gate; the critique input holds a critique of it.',
    `Write the whole edited note to ${EDITED_OUTPUT} (leave it empty when you decide no edit), and write ${DECISION_OUTPUT}:`,
    'why, ending in exactly one line `Decision: edit` or `Decision: no-edit`.',
    'Write nothing else and change no other file.',
    '',
    ...findingsBlock(input.findings),
    'job = edit',
    `note = ${input.note}`,
    'note-input = inputs/note.md',
    'instruction-input = inputs/instruction.md',
    'reviews-input = inputs/reviews.md',
    'critique-input = inputs/critique.md',
    ...(input.direction ? [`direction = ${input.direction.replace(/\s+/g, ' ')}`] : []),
    `output = ${EDITED_OUTPUT}`,
    `output = ${DECISION_OUTPUT}`,
    '',
  ].join('\n');
  await writeInput(dir, 'prompt.md', prompt);
  return { dir, prompt, outputs: [EDITED_OUTPUT, DECISION_OUTPUT] };
}

export type EditCheck =
  | { kind: 'no-edit'; rationaleSha256: string | null }
  | { kind: 'edit'; textSha256: string; rationaleSha256: string | null }
  | { kind: 'refused'; findings: Finding[] };

/** Checks an edited text against the bounds and keeps it in the store; unchanged text is no edit. */
export async function checkEditedText(input: { runDir: string; checkout: string; note: string; baseSha256: string; edited: string }): Promise<EditCheck> {
  const base = await getText(input.runDir, input.baseSha256);
  if (input.edited.trim() === '' || sameText(base, input.edited)) return { kind: 'no-edit', rationaleSha256: null };
  const findings = await checkEditBounds({
    checkout: input.checkout,
    note: input.note,
    before: base,
    after: input.edited,
    registry: new TypeRegistry(input.checkout),
  });
  if (findings.length > 0) return { kind: 'refused', findings };
  return { kind: 'edit', textSha256: await put(input.runDir, input.edited), rationaleSha256: null };
}

/** An edited text that contradicts the decision line (rule `decision-mismatch`). */
const mismatch = (message: string): Finding => ({ file: EDITED_OUTPUT, rule: 'decision-mismatch', severity: 'fail', message });

/** Checks the editor's outputs: the decision line, and for an edit the edited text within its bounds. */
export async function acceptEdit(input: { runDir: string; checkout: string; note: string; baseSha256: string; dir: string }): Promise<EditCheck> {
  const decisionText = await readFile(path.join(input.dir, DECISION_OUTPUT), 'utf8');
  const edited = await readFile(path.join(input.dir, EDITED_OUTPUT), 'utf8');
  const decision = checkDecision(decisionText, DECISION_OUTPUT);
  if (!decision.ok) return { kind: 'refused', findings: [decision.finding] };
  const rationaleSha256 = await put(input.runDir, decision.rationale);
  const check = await checkEditedText({ ...input, edited });
  if (decision.decision === 'no-edit') {
    if (check.kind !== 'no-edit')
      return {
        kind: 'refused',
        findings: [mismatch(`${DECISION_OUTPUT} decides no-edit, but ${EDITED_OUTPUT} holds a changed text; leave it empty for no edit`)],
      };
    return { kind: 'no-edit', rationaleSha256 };
  }
  if (check.kind === 'no-edit')
    return {
      kind: 'refused',
      findings: [
        mismatch(
          `${DECISION_OUTPUT} decides edit, but ${EDITED_OUTPUT} is ${edited.trim() === '' ? 'empty' : 'the note unchanged'}; write the whole edited note`,
        ),
      ],
    };
  if (check.kind === 'refused') return check;
  return { ...check, rationaleSha256 };
}
