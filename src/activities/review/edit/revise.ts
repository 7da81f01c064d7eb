import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../../../fs/atomic.js';
import type { Finding } from '../../../kb/findings.js';
import { sha256 } from '../../../fs/digest.js';
import { formatPlan, parsePlan } from '../../../review/edit/plan.js';
import { isSelectionPass, type Plan, type PlanPass } from '../../../review/edit/plan-types.js';
import { applySelections, formatSelection, locateSelections, parseSelectionList, type Selection } from '../../../review/edit/selection.js';
import { getText, put } from '../../../fs/store.js';
import type { PreparedAsk, Proposal } from '../../../review/edit/types.js';
import { findingItem, findingsBlock } from '../prompt.js';
import { proposalKey } from './common.js';
import { noteLaunch, promptAsk } from './brief.js';
import { writeJson } from './run-files.js';
import { checkEditedText, EDITED_OUTPUT, type EditCheck } from './edit.js';
import { runCommand } from '../../../runs/run-commands.js';

const PLAN_OUTPUT = 'plan.yaml';
const SELECTIONS_OUTPUT = 'selections.md';

interface AskBase {
  runId: string;
  runDir: string;
  note: string;
  textSha256: string;
  seq: number;
  findings: Finding[];
}

/** The worker writes a plan. */
export async function prepareAssessAsk(input: AskBase): Promise<PreparedAsk> {
  const dir = await noteLaunch(input, 'assess', 'assess-revision');
  const prompt = [
    'Follow the instruction in the instruction input to choose the revision passes the note in the note input needs.',
    `Write the plan to ${PLAN_OUTPUT}, in the YAML form the instruction gives. Write nothing else and change no other file.`,
    '',
    ...findingsBlock(input.findings),
    'job = assess',
    `note = ${input.note}`,
    'note-input = inputs/note.md',
    'instruction-input = inputs/instruction.md',
    `output = ${PLAN_OUTPUT}`,
    '',
  ];
  return promptAsk(dir, prompt, [PLAN_OUTPUT]);
}

/** An accepted plan is kept as the run's plan.yaml, for inspection. */
export async function acceptPlan(input: { runDir: string; dir: string }): Promise<{ ok: true; plan: Plan } | { ok: false; findings: Finding[] }> {
  const text = await readFile(path.join(input.dir, PLAN_OUTPUT), 'utf8');
  const parsed = parsePlan(text, PLAN_OUTPUT);
  if (!parsed.ok) return parsed;
  await writeFileAtomic(
    path.join(input.runDir, 'plan.yaml'),
    `# The plan the assessment chose (${path.basename(input.dir)}); it ran after validation.\n${formatPlan(parsed.plan)}`,
  );
  return parsed;
}

/** An editor for a direct pass, a selector for a selection pass. */
export async function preparePassAsk(input: AskBase & { pass: PlanPass }): Promise<PreparedAsk> {
  const { pass } = input;
  const dir = await noteLaunch(input, `pass-${pass.pass}`, `revise-${pass.pass}`);
  const selecting = isSelectionPass(pass.pass);
  const output = selecting ? SELECTIONS_OUTPUT : EDITED_OUTPUT;
  const prompt = [
    `Follow the instruction in the instruction input on the note in the note input (the ${pass.pass} pass of a revision).`,
    selecting ? `Write the selections to ${output}, one per line in the form the instruction gives.` : `Write the whole revised note to ${output}.`,
    'Write nothing else and change no other file.',
    '',
    ...findingsBlock(input.findings),
    `job = ${selecting ? 'select' : 'revise'}`,
    `pass = ${pass.pass}`,
    `note = ${input.note}`,
    'note-input = inputs/note.md',
    'instruction-input = inputs/instruction.md',
    ...(pass.focus ? [`focus = ${pass.focus.replace(/\s+/g, ' ')}`] : []),
    `output = ${output}`,
    '',
  ];
  return promptAsk(dir, prompt, [output]);
}

/** An unchanged text is a pass that changed nothing. */
export async function acceptPassEdit(input: { runDir: string; checkout: string; note: string; baseSha256: string; dir: string }): Promise<EditCheck> {
  return checkEditedText({ ...input, edited: await readFile(path.join(input.dir, EDITED_OUTPUT), 'utf8') });
}

const listText = (selections: readonly Selection[]) => `${selections.map(formatSelection).join('\n')}${selections.length > 0 ? '\n' : ''}`;

/** Every line well formed, every span found exactly once in the body. */
export async function acceptSelections(input: {
  runDir: string;
  dir: string;
  textSha256: string;
}): Promise<{ ok: true; listSha256: string; count: number } | { ok: false; findings: Finding[] }> {
  const parsed = parseSelectionList(await readFile(path.join(input.dir, SELECTIONS_OUTPUT), 'utf8'), SELECTIONS_OUTPUT);
  if (!parsed.ok) return parsed;
  const located = locateSelections(await getText(input.runDir, input.textSha256), parsed.selections, SELECTIONS_OUTPUT);
  if (!located.ok) return located;
  return { ok: true, listSha256: await put(input.runDir, listText(parsed.selections)), count: parsed.selections.length };
}

interface SelectionProposalInput {
  runId: string;
  runDir: string;
  note: string;
  textSha256: string;
  pass: PlanPass;
  listSha256: string;
  /** The run's decisions so far, this one included. */
  stop: number;
  /** Why an earlier answer could not be applied. */
  findings: Finding[];
}

const proposalBase = (stop: number, pass: string) => `proposals/${String(stop).padStart(2, '0')}-${pass}`;

/** The list, and the text it selects from beside it. */
export async function writeSelectionProposal(input: SelectionProposalInput): Promise<Proposal> {
  const base = proposalBase(input.stop, input.pass.pass);
  const list = await getText(input.runDir, input.listSha256);
  const textFile = `${base}.input.md`;
  const text = await getText(input.runDir, input.textSha256);
  const lines = [
    `# ${input.pass.pass} selections for ${input.note}`,
    '',
    `Proposal ${input.stop} of run ${input.runId}. Each \`- [id]\` line is one selection: a span of the note's body`,
    `(as it stands in ${path.posix.basename(textFile)}) and its replacement. Delete a line to reject that selection;`,
    'edit a replacement (a JSON string in double quotes) to change it. Then approve this file, edited or not,',
    `with the key the run printed: ${runCommand.approve(input.runId, { path: `${base}.md`, key: 'KEY' })}`,
    '',
  ];
  if (input.findings.length > 0) lines.push('The last answer could not be applied:', ...input.findings.map(findingItem), '');
  const proposalText = `${lines.join('\n')}${list}`;
  await writeFileAtomic(path.join(input.runDir, `${base}.md`), proposalText);
  await writeFileAtomic(path.join(input.runDir, textFile), text);
  const inputs = [{ path: textFile, sha256: sha256(text) }];
  const proposalSha256 = sha256(proposalText);
  const file = `${base}.md`;
  const proposal: Proposal = {
    path: file,
    key: proposalKey(input.runId, input.stop, file, proposalSha256, inputs),
    stop: input.stop,
    sha256: proposalSha256,
    exact: false,
    inputs,
    inspect: [file, textFile],
  };
  await writeJson(path.join(input.runDir, `${base}.json`), { ...proposal, pass: input.pass, listSha256: input.listSha256 });
  return proposal;
}

export type AnswerApplied =
  | { kind: 'applied'; textSha256: string; accepted: string[]; rejected: string[]; edited: string[] }
  | { kind: 'refused'; listSha256: string; findings: Finding[] };

/** The answer, and what it accepted, rejected and edited, are kept beside the proposal. */
export async function applyAnswer(input: {
  runDir: string;
  checkout: string;
  note: string;
  textSha256: string;
  proposal: Proposal;
  listSha256: string;
  answerText: string;
}): Promise<AnswerApplied> {
  const base = input.proposal.path.replace(/\.md$/, '');
  await writeFileAtomic(path.join(input.runDir, `${base}.answer.md`), input.answerText);
  const proposed = parseSelectionList(await getText(input.runDir, input.listSha256), input.proposal.path);
  const answered = parseSelectionList(input.answerText, input.proposal.path);
  if (!answered.ok || !proposed.ok) {
    const unreadable: Finding = { file: input.proposal.path, rule: 'selection-proposal', severity: 'fail', message: 'the proposed list no longer parses' };
    return { kind: 'refused', listSha256: input.listSha256, findings: answered.ok ? [unreadable] : answered.findings };
  }
  const listSha256 = await put(input.runDir, listText(answered.selections));
  const text = await getText(input.runDir, input.textSha256);
  const applied = applySelections(text, answered.selections, input.proposal.path);
  if (!applied.ok) return { kind: 'refused', listSha256, findings: applied.findings };
  const ids = new Set(answered.selections.map((selection) => selection.id));
  const accepted = answered.selections.map((selection) => selection.id);
  const rejected = proposed.selections.filter((selection) => !ids.has(selection.id)).map((selection) => selection.id);
  const edited = answered.selections
    .filter((selection) => {
      const was = proposed.selections.find((candidate) => candidate.id === selection.id);
      return !was || was.span !== selection.span || was.replacement !== selection.replacement;
    })
    .map((selection) => selection.id);
  await writeJson(path.join(input.runDir, `${base}.decision.json`), {
    proposal: input.proposal.path,
    proposed: proposed.selections,
    accepted: answered.selections,
    rejected: proposed.selections.filter((selection) => !ids.has(selection.id)),
    edited,
  });
  if (accepted.length === 0) return { kind: 'applied', textSha256: input.textSha256, accepted, rejected, edited };
  const check = await checkEditedText({ runDir: input.runDir, checkout: input.checkout, note: input.note, baseSha256: input.textSha256, edited: applied.text });
  if (check.kind === 'refused') return { kind: 'refused', listSha256, findings: check.findings };
  return { kind: 'applied', textSha256: check.kind === 'edit' ? check.textSha256 : input.textSha256, accepted, rejected, edited };
}
