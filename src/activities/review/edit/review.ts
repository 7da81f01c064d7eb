import { outputText } from '../../../review/output-bounds.js';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { LaunchResult } from '../../../harness/launch-contract.js';
import { hashParts, noteParts } from '../../../review/hash.js';
import type { Finding } from '../../../kb/findings.js';
import { checkBundle, checkResultLine, missingSection } from '../../../review/result-line.js';
import type { Grouping, Rejection } from '../../../review/sweep-types.js';
import { getText, put } from '../../../fs/store.js';
import { resultSpend } from '../../../review/result-file.js';
import type { PreparedAsk, ReviewRecord, ReviewUnit } from '../../../review/edit/types.js';
import { reviewPrompt } from '../prompt.js';
import { briefText, readBrief } from './brief.js';
import { badInput } from './failures.js';
import { launchDir, writeInput } from './run-files.js';

const REVIEW_OUTPUT = 'review.md';

interface ReviewAskInput {
  runId: string;
  runDir: string;
  note: string;
  /** The start text, or an edited one. */
  textSha256: string;
  unit: ReviewUnit;
  seq: number;
  findings: Finding[];
}

/** The sweep's review prompt (the same output contract) over a text the run holds and its captured criteria. */
export async function prepareReviewAsk(input: ReviewAskInput): Promise<PreparedAsk & { grouping: Grouping }> {
  const dir = await launchDir(input.runDir, input.seq, `review-${input.unit.key}`);
  const brief = await readBrief(input.runDir);
  await writeInput(dir, 'inputs/note.md', await getText(input.runDir, input.textSha256));
  const criterionInputs: Record<string, string> = {};
  for (const criterion of input.unit.criteria) {
    const relative = path.join('inputs', 'criteria', `${criterion.id.replace(/\.md$/, '')}.md`);
    await writeInput(dir, relative, await briefText(input.runDir, brief, criterion.path));
    criterionInputs[criterion.id] = relative;
  }
  const grouping: Grouping = input.unit.criteria.length > 1 ? 'bundle' : 'pair';
  const prompt = reviewPrompt({
    unit: {
      key: input.unit.key,
      note: input.note,
      lens: input.unit.lens,
      criteria: input.unit.criteria.map(({ id, path: file, report }) => ({ id, path: file, report })),
    },
    grouping,
    noteInput: path.join('inputs', 'note.md'),
    criterionInputs,
    output: REVIEW_OUTPUT,
    findings: input.findings,
  });
  await writeInput(dir, 'prompt.md', prompt);
  return { dir, prompt, outputs: [REVIEW_OUTPUT], grouping };
}

interface AcceptReviewInput {
  runDir: string;
  unit: ReviewUnit;
  dir: string;
  grouping: Grouping;
  textSha256: string;
  launch: LaunchResult;
  /** The profile's `max-output`. */
  maxOutputBytes?: number;
}

/** The strict result line, or one section per gate; accepted bodies go to the store. */
export async function acceptReview(input: AcceptReviewInput): Promise<{ accepted: ReviewRecord[]; rejected: Rejection[] }> {
  const read = outputText(await readFile(path.join(input.dir, REVIEW_OUTPUT)), {
    file: REVIEW_OUTPUT,
    ...(input.maxOutputBytes !== undefined && { maxBytes: input.maxOutputBytes }),
  });
  if (!read.ok)
    return {
      accepted: [],
      rejected: input.unit.criteria.map((criterion) => ({
        criterion: criterion.id,
        findings: read.findings.map((finding) => ({ ...finding, criterion: criterion.id })),
      })),
    };
  const text = read.text;
  const accepted: ReviewRecord[] = [];
  const rejected: Rejection[] = [];
  const record = async (criterion: string, outcome: ReviewRecord['outcome'], body: string): Promise<void> => {
    accepted.push({
      criterion,
      outcome,
      textSha256: input.textSha256,
      bodySha256: await put(input.runDir, body.endsWith('\n') ? body : `${body}\n`),
      launchId: input.launch.launchId,
      profile: input.launch.profile,
      model: input.launch.model ?? 'unreported',
      spend: resultSpend(input.launch, input.unit.criteria.length),
    });
  };
  if (input.grouping === 'bundle') {
    const check = checkBundle(
      text,
      input.unit.criteria.map((criterion) => criterion.id),
      { file: REVIEW_OUTPUT },
    );
    for (const section of check.accepted) await record(section.gate, section.outcome, section.text);
    for (const refusal of check.rejected) rejected.push({ criterion: refusal.gate, findings: [...refusal.findings] });
    for (const gate of check.missing) rejected.push({ criterion: gate, findings: [missingSection(gate, REVIEW_OUTPUT)] });
  } else {
    const criterion = input.unit.criteria[0]!;
    const check = checkResultLine(text, { report: criterion.report, file: REVIEW_OUTPUT, criterion: criterion.id });
    if (check.ok) await record(criterion.id, check.outcome, text);
    else rejected.push({ criterion: criterion.id, findings: [...check.findings] });
  }
  return { accepted, rejected };
}

/** Per unit, the criteria whose watched parts the edit changed; the rest keep their review. */
export async function staleAfterEdit(input: {
  runDir: string;
  note: string;
  units: ReviewUnit[];
  fromSha256: string;
  toSha256: string;
}): Promise<ReviewUnit[]> {
  const read = async (digest: string) => {
    const parts = noteParts(await getText(input.runDir, digest), input.note);
    if (!parts.ok) throw badInput(`${input.note}: a text of the run cannot be hashed: ${parts.findings.map((finding) => finding.message).join('; ')}`);
    return parts.parts;
  };
  const from = await read(input.fromSha256);
  const to = await read(input.toSha256);
  return input.units
    .map((unit) => ({ ...unit, criteria: unit.criteria.filter((criterion) => hashParts(from, criterion.watches) !== hashParts(to, criterion.watches)) }))
    .filter((unit) => unit.criteria.length > 0);
}
