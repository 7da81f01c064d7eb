import type { Finding } from '../kb/findings.js';
import type { EditSummary, FullPassInput, ReviewRecord, ReviewUnit } from '../review/edit/types.js';
import type { Stop } from '../runs/stop.js';
import { checked, gather, type CheckedResult } from './asking/checked.js';
import { askActivities, askJob } from './editing/ask-job.js';
import { EditRun } from './editing/edit-run.js';
import { editRun, guardStep, packetStep, untilAccepted, type RunContext } from './editing/steps.js';
import { budgetStopReason, type SpentUnit } from './editing/budget-stop-reason.js';

const { prepareReviewAsk, acceptReview, staleAfterEdit, prepareEditAsk, acceptEdit } = askActivities;

export {
  editAcknowledgeUpdate as acknowledgeUpdate,
  editApproveUpdate as approveUpdate,
  editProgressQuery as progressQuery,
  editResumeUpdate as resumeUpdate,
} from './messages.js';

interface ReviewAsk {
  unit: ReviewUnit;
  /** Carried over a stop: the first try after it is told why the last was refused. */
  findings: Finding[];
}

/** A lens bundle re-asks only its refused gates. */
function reviewUnit(run: EditRun, ctx: RunContext, textSha256: string, item: ReviewAsk): Promise<CheckedResult<ReviewAsk, ReviewRecord>> {
  const { prepared } = ctx;
  return checked(item, prepared.profile.attempts, ({ input, attempt, findings }) => {
    const job = {
      name: `review-${input.unit.key}`,
      attempt,
      summary: `${ctx.note} × ${input.unit.lens === 'critique' ? 'critique' : `${input.unit.lens} (${input.unit.criteria.length} gates)`}, attempt ${attempt}`,
      inputs: { text: textSha256 },
    };
    return askJob(
      run,
      ctx,
      job,
      (seq) =>
        prepareReviewAsk.executeWithOptions({ summary: `write the review ask of ${ctx.note} × ${input.unit.key}, attempt ${attempt}` }, [
          {
            runId: prepared.runId,
            runDir: prepared.runDir,
            note: ctx.note,
            textSha256,
            unit: input.unit,
            seq,
            findings: findings.length > 0 ? findings : input.findings,
          },
        ]),
      async ({ asked, result }) => {
        const check = await acceptReview.executeWithOptions({ summary: `accept the review of ${ctx.note} × ${input.unit.key}, attempt ${attempt}` }, [
          {
            runDir: prepared.runDir,
            unit: input.unit,
            dir: asked.dir,
            grouping: asked.grouping,
            textSha256,
            launch: result,
            ...(prepared.profile.maxOutputBytes !== undefined && { maxOutputBytes: prepared.profile.maxOutputBytes }),
          },
        ]);
        const again = new Set(check.rejected.map((rejected) => rejected.criterion));
        return {
          kind: 'checked' as const,
          accepted: check.accepted,
          // Each finding names its criterion (a recorded history's plain strings are passed on as they are).
          findings: check.rejected.flatMap((rejected) => rejected.findings),
          next: { unit: { ...input.unit, criteria: input.unit.criteria.filter((criterion) => again.has(criterion.id)) }, findings: [] },
        };
      },
    );
  });
}

/** A stop lets the launches in flight finish, stops the run, and on resume asks only what is not yet accepted. */
async function reviewText(run: EditRun, ctx: RunContext, concurrency: number, units: ReviewUnit[], textSha256: string): Promise<ReviewRecord[]> {
  const accepted: ReviewRecord[] = [];
  let pending: ReviewAsk[] = units.map((unit) => ({ unit, findings: [] }));
  while (pending.length > 0) {
    const stopped: { stop?: Stop } = {};
    const results = await gather(
      pending,
      concurrency,
      async (item) => {
        const result = await reviewUnit(run, ctx, textSha256, item);
        if (result.status === 'stopped') stopped.stop ??= result.stop;
        return result;
      },
      () => stopped.stop === undefined,
    );
    const left: ReviewAsk[] = [];
    const spent: SpentUnit[] = [];
    results.forEach((result, index) => {
      if (!result) return left.push(pending[index]!);
      accepted.push(...result.accepted);
      if (result.status === 'accepted') return;
      left.push(result.status === 'exhausted' ? { unit: result.pending.unit, findings: result.findings } : result.pending);
      if (result.status === 'exhausted')
        spent.push({ label: result.pending.unit.criteria.map((criterion) => criterion.id).join(', '), findings: result.findings });
    });
    pending = left;
    if (pending.length === 0) break;
    await run.lifecycle.halt(
      stopped.stop ?? {
        kind: 'budget-exhausted',
        disposition: 'operator',
        reason: budgetStopReason('review outputs kept failing their check', ctx.prepared.profile.attempts, spent),
        evidence: ctx.prepared.runDir,
      },
    );
  }
  return accepted;
}

/** Gates and critique, a bounded edit, the gates again where the edit changed what they watch; a changed note waits for its manifest's approval. */
export async function fullPass(input: FullPassInput): Promise<EditSummary> {
  return editRun('full-pass', input, (run, ctx) => passOver(run, input, ctx));
}

async function passOver(run: EditRun, input: FullPassInput, ctx: RunContext): Promise<EditSummary> {
  const { prepared } = ctx;

  const gates = prepared.units.reduce((sum, unit) => sum + (unit.lens === 'critique' ? 0 : unit.criteria.length), 0);
  run.at(`reviewing the note: ${gates} gates in ${prepared.units.length - 1} lens bundles, and the critique`);
  const startReviews = await reviewText(run, ctx, input.concurrency, prepared.units, prepared.startSha256);
  await guardStep(run, ctx);

  run.at('editing');
  // The editor reads the text and every review of it: the key holds each review's digest.
  const reviewed = startReviews.map((review) => `${review.criterion}=${review.bodySha256}`).join(' ');
  const [edit] = await untilAccepted(run, 'the editor', null, prepared.profile.attempts, ({ attempt, findings }) =>
    askJob(
      run,
      ctx,
      { name: 'edit', attempt, summary: `${input.note}: edit, attempt ${attempt}`, inputs: { text: prepared.startSha256, reviews: reviewed } },
      (seq) =>
        prepareEditAsk.executeWithOptions({ summary: `write the editor's ask for ${input.note}` }, [
          {
            runId: prepared.runId,
            runDir: prepared.runDir,
            note: input.note,
            textSha256: prepared.startSha256,
            reviews: startReviews,
            direction: input.options.direction,
            seq,
            findings,
          },
        ]),
      async ({ asked }) => {
        const check = await acceptEdit.executeWithOptions({ summary: `check the edit of ${input.note} against the edit bounds` }, [
          { runDir: prepared.runDir, checkout: input.checkout, note: input.note, baseSha256: prepared.startSha256, dir: asked.dir },
        ]);
        if (check.kind === 'refused') return { kind: 'checked' as const, accepted: [], findings: check.findings };
        return { kind: 'checked' as const, accepted: [check], findings: [] };
      },
    ),
  );
  await guardStep(run, ctx);

  let finalSha256 = prepared.startSha256;
  let finalReviews = startReviews;
  if (edit?.kind === 'edit') {
    finalSha256 = edit.textSha256;
    const stale = await staleAfterEdit.executeWithOptions({ summary: `find the gates the edit of ${input.note} staled` }, [
      { runDir: prepared.runDir, note: input.note, units: prepared.units, fromSha256: prepared.startSha256, toSha256: finalSha256 },
    ]);
    const again = stale.reduce((sum, unit) => sum + unit.criteria.length, 0);
    run.at(`reviewing the edited text: the ${again} criteria whose watched parts the edit changed`);
    const reviewed = await reviewText(run, ctx, input.concurrency, stale, finalSha256);
    const redone = new Set(reviewed.map((review) => review.criterion));
    finalReviews = [...startReviews.filter((review) => !redone.has(review.criterion)), ...reviewed];
    await guardStep(run, ctx);
  }

  return packetStep(run, ctx, {
    kind: 'full-pass',
    finalSha256,
    decision: edit?.kind === 'edit' ? 'edit' : 'no-edit',
    units: prepared.units,
    startReviews,
    finalReviews,
    rationaleSha256: edit?.rationaleSha256 ?? null,
    passes: [],
  });
}
