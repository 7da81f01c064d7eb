import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { EditSummary, FullPassInput, ReviewRecord, ReviewUnit } from '../review/edit/types.js';
import { ask } from './helpers/ask.js';
import { checked, gather, type CheckedResult } from './helpers/checked.js';
import { guardStep, Operator, publishStep, spentReason, untilAccepted, type RunContext } from './helpers/decide.js';
import { stopFor, type Stop } from './helpers/stops.js';

const { prepareEdit, writeCandidate } = proxyActivities<Activities>({ startToCloseTimeout: '10m', heartbeatTimeout: '2m', retry: { maximumAttempts: 3 } });
const { prepareReviewAsk, acceptReview, staleAfterEdit, prepareEditAsk, acceptEdit } = proxyActivities<Activities>({ startToCloseTimeout: '2m', retry: { maximumAttempts: 5 } });

export { approveUpdate, acknowledgeUpdate, progressQuery, resumeUpdate } from './helpers/decide.js';

interface ReviewAsk {
  unit: ReviewUnit;
  /** Findings carried over a stop (the first try after it is told why the last was refused). */
  findings: string[];
}


/** One unit (a lens bundle, or the critique) asked through *checked*: a bundle re-asks only its refused gates. */
function reviewUnit(operator: Operator, ctx: RunContext, textSha256: string, item: ReviewAsk): Promise<CheckedResult<ReviewAsk, ReviewRecord>> {
  const { prepared } = ctx;
  return checked(item, prepared.profile.attempts, async ({ input, attempt, findings }) => {
    const seq = ++ctx.seq;
    const asked = await prepareReviewAsk({ runId: prepared.runId, runDir: prepared.runDir, note: ctx.note, textSha256, unit: input.unit, seq, findings: findings.length > 0 ? findings : input.findings });
    operator.launches += 1;
    const outcome = await ask(
      { launchId: `${prepared.runId}/${seq}-review-${input.unit.key}/${attempt}`, profile: prepared.profile, dir: asked.dir, prompt: asked.prompt, outputs: asked.outputs },
      `${ctx.note} × ${input.unit.lens === 'critique' ? 'critique' : `${input.unit.lens} (${input.unit.criteria.length} gates)`}, attempt ${attempt}`,
    );
    const stop = stopFor(outcome);
    if (stop) return { kind: 'stop', stop };
    if (outcome.status !== 'completed') return { kind: 'spent', findings: [spentReason(outcome)] };
    const check = await acceptReview({ runDir: prepared.runDir, unit: input.unit, dir: asked.dir, grouping: asked.grouping, textSha256, launch: outcome.result });
    const again = new Set(check.rejected.map((rejected) => rejected.criterion));
    return {
      kind: 'checked',
      accepted: check.accepted,
      findings: check.rejected.flatMap((rejected) => rejected.findings.map((finding) => `${rejected.criterion}: ${finding}`)),
      next: { unit: { ...input.unit, criteria: input.unit.criteria.filter((criterion) => again.has(criterion.id)) }, findings: [] },
    };
  });
}

/**
 * Asks every unit over one text, at most `concurrency` at once (*gather*). A stop lets the launches in
 * flight finish, stops the run, and on resume asks only what is not yet accepted.
 */
async function reviewText(operator: Operator, ctx: RunContext, concurrency: number, units: ReviewUnit[], textSha256: string): Promise<ReviewRecord[]> {
  const accepted: ReviewRecord[] = [];
  let pending: ReviewAsk[] = units.map((unit) => ({ unit, findings: [] }));
  while (pending.length > 0) {
    const stopped: { stop?: Stop } = {};
    const results = await gather(
      pending,
      concurrency,
      async (item) => {
        const result = await reviewUnit(operator, ctx, textSha256, item);
        if (result.status === 'stopped') stopped.stop ??= result.stop;
        return result;
      },
      () => stopped.stop === undefined,
    );
    const left: ReviewAsk[] = [];
    const spent: string[] = [];
    results.forEach((result, index) => {
      if (!result) return left.push(pending[index]!);
      accepted.push(...result.accepted);
      if (result.status === 'accepted') return;
      left.push(result.status === 'exhausted' ? { unit: result.pending.unit, findings: result.findings } : result.pending);
      if (result.status === 'exhausted') spent.push(`${result.pending.unit.criteria.map((criterion) => criterion.id).join(', ')}: ${result.findings.join('; ')}`);
    });
    pending = left;
    if (pending.length === 0) break;
    await operator.halt(stopped.stop ?? { kind: 'budget-exhausted', disposition: 'operator', reason: `review outputs kept failing their check (attempt budget ${ctx.prepared.profile.attempts}): ${spent.join(' | ')}`.slice(0, 800) });
  }
  return accepted;
}

/**
 * The full pass over one note: the gates (one bundle launch per lens) and the critique over the
 * note, an editor whose edit is checked against its bounds, the gates again where the edit changed
 * what they watch, then the packet and result files for the final text — published at once when
 * nothing changed, or after the operator approves the exact manifest of a changed note.
 */
export async function fullPass(input: FullPassInput): Promise<EditSummary> {
  const { workflowId, runId: executionRunId } = workflowInfo();
  const operator = new Operator({ kind: 'full-pass', runId: input.runId, workflowId, note: input.note }, `commonplace review run full-pass ${input.note}`);
  operator.at('preparing: capturing the note, the brief and the checkout state');
  const prepared = await prepareEdit({ kind: 'full-pass', input, workflowId, executionRunId });
  operator.runDir = prepared.runDir;
  const ctx: RunContext = { checkout: input.checkout, note: input.note, prepared, baseline: prepared.baseline, seq: 0 };
  await guardStep(operator, ctx);

  const gates = prepared.units.reduce((sum, unit) => sum + (unit.lens === 'critique' ? 0 : unit.criteria.length), 0);
  operator.at(`reviewing the note: ${gates} gates in ${prepared.units.length - 1} lens bundles, and the critique`);
  const startReviews = await reviewText(operator, ctx, input.concurrency, prepared.units, prepared.startSha256);
  await guardStep(operator, ctx);

  operator.at('editing');
  const [edit] = await untilAccepted(operator, 'the editor', null, prepared.profile.attempts, async ({ attempt, findings }) => {
    const seq = ++ctx.seq;
    const asked = await prepareEditAsk({ runId: prepared.runId, runDir: prepared.runDir, note: input.note, textSha256: prepared.startSha256, reviews: startReviews, direction: input.options.direction, seq, findings });
    operator.launches += 1;
    const outcome = await ask({ launchId: `${prepared.runId}/${seq}-edit/${attempt}`, profile: prepared.profile, dir: asked.dir, prompt: asked.prompt, outputs: asked.outputs }, `${input.note}: edit, attempt ${attempt}`);
    const stop = stopFor(outcome);
    if (stop) return { kind: 'stop', stop };
    if (outcome.status !== 'completed') return { kind: 'spent', findings: [spentReason(outcome)] };
    const check = await acceptEdit({ runDir: prepared.runDir, checkout: input.checkout, note: input.note, baseSha256: prepared.startSha256, dir: asked.dir });
    if (check.kind === 'refused') return { kind: 'checked', accepted: [], findings: check.findings };
    return { kind: 'checked', accepted: [check], findings: [] };
  });
  await guardStep(operator, ctx);

  let finalSha256 = prepared.startSha256;
  let finalReviews = startReviews;
  if (edit?.kind === 'edit') {
    finalSha256 = edit.textSha256;
    const stale = await staleAfterEdit({ runDir: prepared.runDir, note: input.note, units: prepared.units, fromSha256: prepared.startSha256, toSha256: finalSha256 });
    const again = stale.reduce((sum, unit) => sum + unit.criteria.length, 0);
    operator.at(`reviewing the edited text: the ${again} criteria whose watched parts the edit changed`);
    const reviewed = await reviewText(operator, ctx, input.concurrency, stale, finalSha256);
    const redone = new Set(reviewed.map((review) => review.criterion));
    finalReviews = [...startReviews.filter((review) => !redone.has(review.criterion)), ...reviewed];
    await guardStep(operator, ctx);
  }

  operator.at('writing the packet');
  operator.decisions += 1;
  const candidate = await writeCandidate({
    kind: 'full-pass',
    runId: prepared.runId,
    runDir: prepared.runDir,
    workflowId,
    checkout: input.checkout,
    note: input.note,
    startSha256: prepared.startSha256,
    finalSha256,
    decision: edit?.kind === 'edit' ? 'edit' : 'no-edit',
    profile: prepared.profile.name,
    units: prepared.units,
    startReviews,
    finalReviews,
    rationaleSha256: edit?.rationaleSha256 ?? null,
    passes: [],
    stop: operator.decisions,
  });
  return publishStep(operator, ctx, candidate, {
    kind: 'full-pass',
    runId: prepared.runId,
    note: input.note,
    runDir: prepared.runDir,
    decision: edit?.kind === 'edit' ? 'edit' : 'no-edit',
    startSha256: prepared.startSha256,
    finalSha256,
  });
}
