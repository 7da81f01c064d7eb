/** A unit's answer: its output checked, and a result file written for each accepted criterion whose inputs are unchanged. */
import { appendFile, readFile } from 'node:fs/promises';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { join } from 'node:path';
import { writeFileAtomic } from '../../../fs/atomic.js';
import { outputText, outputTooLarge } from '../../../review/output-bounds.js';
import { resultSpend, writeResultFile } from '../../../review/result-file.js';
import { checkBundle, checkResultLine, missingSection } from '../../../review/result-line.js';
import type { LaunchResult } from '../../../harness/launch-contract.js';
import type { AcceptInput, AcceptOutcome, SweepUnit } from '../../../review/sweep-types.js';
import { writeCompareVerdict } from '../compare/verdicts.js';
import { activityOwner, findAnswer, recordAnswer, restoreOutputs } from './answers.js';
import { launchDirOf, readCapture, type CaptureRecord } from './capture.js';
import { sweepGuardCheck } from './guard.js';
import { inputsNow } from './inputs.js';
import { REVIEW_OUTPUT, runDirOf, staleOnArrivalFile } from './run-dir.js';

/** A result file is written only while the note and criterion still hash to what the worker was given; else the pair arrived stale. */
export async function acceptUnit(input: AcceptInput): Promise<AcceptOutcome> {
  const dir = launchDirOf(input.checkout, input.runId, input.unit.key, input.attempt);
  const captured = await readCapture(dir);
  return judgeAnswer(input, dir, captured, await answerOf(input, captured.answer, dir));
}

/** Judged against the checkout as it is now. */
export async function judgeAnswer(
  input: Omit<AcceptInput, 'attempt' | 'launch'>,
  dir: string,
  captured: CaptureRecord,
  launch: LaunchResult,
): Promise<AcceptOutcome> {
  const { unit } = input;
  const file = join(dir, REVIEW_OUTPUT);
  if (input.guard !== undefined) {
    const { changed } = await sweepGuardCheck({ checkout: input.checkout, runId: input.runId, baseline: input.guard });
    if (changed.length > 0) return { written: [], rejected: [], staleOnArrival: [], changed };
  }
  const bounds = { file: REVIEW_OUTPUT, ...(input.maxOutputBytes !== undefined && { maxBytes: input.maxOutputBytes }) };
  const oversize = launch.oversize?.includes(REVIEW_OUTPUT) ? launch.outputs.find((output) => output.path === REVIEW_OUTPUT)?.size : undefined;
  const read = oversize !== undefined ? outputTooLarge(oversize, bounds) : outputText(await readFile(file), bounds);
  if (!read.ok) {
    // Outside the output bounds: every criterion it answered is refused, and nothing is written.
    return {
      written: [],
      rejected: unit.criteria.map((criterion) => ({
        criterion: criterion.id,
        findings: read.findings.map((finding) => ({ ...finding, criterion: criterion.id })),
      })),
      staleOnArrival: [],
    };
  }
  const text = read.text;
  const sections: { criterion: string; outcome: 'pass' | 'warn' | 'fail' | 'report'; body: string }[] = [];
  const rejected: AcceptOutcome['rejected'] = [];
  if (captured.grouping === 'bundle') {
    const check = checkBundle(
      text,
      unit.criteria.map((criterion) => criterion.id),
      { file: REVIEW_OUTPUT },
    );
    for (const section of check.accepted) sections.push({ criterion: section.gate, outcome: section.outcome, body: section.text });
    for (const refusal of check.rejected) rejected.push({ criterion: refusal.gate, findings: [...refusal.findings] });
    for (const gate of check.missing) rejected.push({ criterion: gate, findings: [missingSection(gate, REVIEW_OUTPUT)] });
  } else {
    const criterion = unit.criteria[0]!;
    const check = checkResultLine(text, { report: criterion.report, file: REVIEW_OUTPUT, criterion: criterion.id });
    if (check.ok) sections.push({ criterion: criterion.id, outcome: check.outcome, body: text.endsWith('\n') ? text : `${text}\n` });
    else rejected.push({ criterion: criterion.id, findings: [...check.findings] });
  }

  const now = sections.length > 0 ? await inputsNow(input.checkout, unit) : undefined;
  const written: AcceptOutcome['written'] = [];
  const staleOnArrival: string[] = [];
  for (const section of sections) {
    const criterion = unit.criteria.find((entry) => entry.id === section.criterion)!;
    const capturedHashes = captured.hashes[criterion.id]!;
    const current = now?.criteria.get(criterion.id)?.hashes;
    if (!current || current.note !== capturedHashes.note || current.criterion !== capturedHashes.criterion) {
      staleOnArrival.push(criterion.id);
      continue;
    }
    // A compare run keeps the verdict in its own directory, apart from every other route's: the KB's result files are never written.
    if (input.compare !== undefined) {
      await writeCompareVerdict(input.checkout, input.compare, {
        note: unit.note,
        criterion: criterion.id,
        outcome: section.outcome,
        body: section.body,
        launch,
        hashes: capturedHashes,
        share: unit.criteria.length,
      });
      written.push({ criterion: criterion.id, outcome: section.outcome });
      continue;
    }
    await writeResultFile(input.checkout, {
      note: unit.note,
      criterion: criterion.id,
      noteSha256: capturedHashes.note,
      criterionSha256: capturedHashes.criterion,
      outcome: section.outcome,
      profile: launch.profile,
      model: launch.model ?? 'unreported',
      run: input.runId,
      launch: launch.launchId,
      body: section.body,
      spend: resultSpend(launch, unit.criteria.length),
    });
    written.push({ criterion: criterion.id, outcome: section.outcome });
  }
  if (staleOnArrival.length > 0) {
    await appendFile(
      staleOnArrivalFile(runDirOf(input.checkout, input.runId)),
      staleOnArrival.map((criterion) => `${JSON.stringify({ note: unit.note, criterion })}\n`).join(''),
    );
  }
  return { written, rejected, staleOnArrival };
}

/** A fresh launch's answer is recorded first; a recorded one is read back into the launch directory. */
async function answerOf(input: AcceptInput, digest: string, dir: string): Promise<LaunchResult> {
  if (input.launch !== undefined) {
    const bytes = input.launch.outputBytes?.[REVIEW_OUTPUT];
    if (bytes !== undefined) await writeFileAtomic(join(dir, REVIEW_OUTPUT), Buffer.from(bytes, 'base64'));
    await recordAnswer(input.checkout, input.runId, digest, { owner: activityOwner(), launch: input.launch }, dir);
    return input.launch;
  }
  const recorded = await findAnswer(input.checkout, input.runId, digest);
  if (recorded === undefined)
    throw ApplicationFailure.create({
      type: 'bad-launch-input',
      nonRetryable: true,
      message: `unit ${input.unit.key}: no recorded answer for attempt ${input.attempt}`,
    });
  await restoreOutputs(recorded, dir);
  return recorded.launch;
}

/** One guard check for the group, then each unit's accept. */
export async function acceptUnits(input: Omit<AcceptInput, 'unit' | 'attempt' | 'launch'> & { units: SweepUnit[] }): Promise<Record<string, AcceptOutcome>> {
  const { units, guard, ...common } = input;
  const changed = guard === undefined ? [] : (await sweepGuardCheck({ checkout: input.checkout, runId: input.runId, baseline: guard })).changed;
  const outcomes: Record<string, AcceptOutcome> = {};
  for (const [index, unit] of units.entries()) {
    outcomes[unit.key] = changed.length > 0 ? { written: [], rejected: [], staleOnArrival: [], changed } : await acceptUnit({ ...common, unit, attempt: 1 });
    if (index % 50 === 49) Context.current().heartbeat(`judged ${index + 1} of ${units.length} answers`);
  }
  return outcomes;
}
