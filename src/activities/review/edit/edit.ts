import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Finding } from '../../../kb/findings.js';
import { TypeRegistry } from '../../../kb/type-registry.js';
import { checkEditBounds } from '../../../review/edit/bounds.js';
import { checkDecision, sameText } from '../../../review/edit/decision.js';
import { getText, put } from '../../../fs/store.js';
import type { PreparedAsk, ReviewRecord } from '../../../review/edit/types.js';
import { CRITIQUE_INSTRUCTION } from '../../../review/paths.js';
import { findingsBlock } from '../prompt.js';
import { writeInput } from './run-files.js';
import { noteLaunch, promptAsk } from './brief.js';

export const EDITED_OUTPUT = 'edited.md';
export const DECISION_OUTPUT = 'decision.md';

interface EditAskInput {
  runId: string;
  runDir: string;
  note: string;
  textSha256: string;
  /** The gates' and the critique's. */
  reviews: ReviewRecord[];
  direction: string | null;
  seq: number;
  findings: Finding[];
}

/** Each gate's review under its ID and outcome, failures first. */
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

/** The full pass's editor: the text, its reviews, the critique and the editing instruction. */
export async function prepareEditAsk(input: EditAskInput): Promise<PreparedAsk> {
  const dir = await noteLaunch(input, 'edit', 'edit-note');
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
  ];
  return promptAsk(dir, prompt, [EDITED_OUTPUT, DECISION_OUTPUT]);
}

export type EditCheck =
  | { kind: 'no-edit'; rationaleSha256: string | null }
  | { kind: 'edit'; textSha256: string; rationaleSha256: string | null }
  | { kind: 'refused'; findings: Finding[] };

/** Unchanged text is no edit; an edit within the bounds is kept in the store. */
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

const mismatch = (message: string): Finding => ({ file: EDITED_OUTPUT, rule: 'decision-mismatch', severity: 'fail', message });

/** The decision line, and for an edit the edited text within its bounds. */
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
