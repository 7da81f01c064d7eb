import { ApplicationFailure } from '@temporalio/workflow';
import type { Finding } from '../kb/findings.js';
import type { EditCheck, PassRecord } from '../activities/review/edit/index.js';
import type { Plan, PlanPass } from '../review/edit/plan-types.js';
import { isSelectionPass } from '../review/edit/plan-types.js';
import type { EditSummary, ReviseInput } from '../review/edit/types.js';
import { askActivities, askJob, type EditJob } from './editing/ask-job.js';
import { EditRun } from './editing/edit-run.js';
import { editRun, guardStep, packetStep, untilAccepted, type RunContext } from './editing/steps.js';

const { prepareAssessAsk, acceptPlan, preparePassAsk, acceptPassEdit, acceptSelections, writeSelectionProposal, applyAnswer } = askActivities;

export {
  editAcknowledgeUpdate as acknowledgeUpdate,
  editApproveUpdate as approveUpdate,
  editProgressQuery as progressQuery,
  editResumeUpdate as resumeUpdate,
} from './messages.js';

function job(ctx: RunContext, name: string, attempt: number, textSha256: string): EditJob {
  return { name, attempt, summary: `${ctx.note}: ${name}, attempt ${attempt}`, inputs: { text: textSha256 } };
}

function passAsk(ctx: RunContext, pass: PlanPass, textSha256: string, findings: Finding[]) {
  const { runId, runDir } = ctx.prepared;
  return (seq: number) =>
    preparePassAsk.executeWithOptions({ summary: `write the ${pass.pass} pass ask for ${ctx.note}` }, [
      { runId, runDir, note: ctx.note, textSha256, pass, seq, findings },
    ]);
}

async function directPass(run: EditRun, ctx: RunContext, pass: PlanPass, textSha256: string): Promise<EditCheck> {
  const { prepared } = ctx;
  const [result] = await untilAccepted(run, `the ${pass.pass} pass`, null, prepared.profile.attempts, ({ attempt, findings }) =>
    askJob<null, EditCheck>(run, ctx, job(ctx, `pass-${pass.pass}`, attempt, textSha256), passAsk(ctx, pass, textSha256, findings), async ({ asked }) => {
      const check = await acceptPassEdit.executeWithOptions({ summary: `check the ${pass.pass} pass edit of ${ctx.note} against the edit bounds` }, [
        { runDir: prepared.runDir, checkout: ctx.checkout, note: ctx.note, baseSha256: textSha256, dir: asked.dir },
      ]);
      return check.kind === 'refused' ? { kind: 'checked', accepted: [], findings: check.findings } : { kind: 'checked', accepted: [check], findings: [] };
    }),
  );
  return result!;
}

/** The selector's checked list is applied by code in the form the operator approved (edited or not); nothing is applied without an approval. */
async function selectionPass(run: EditRun, ctx: RunContext, pass: PlanPass, textSha256: string): Promise<{ textSha256: string; record: PassRecord }> {
  const { prepared } = ctx;
  const [selected] = await untilAccepted(run, `the ${pass.pass} selection`, null, prepared.profile.attempts, ({ attempt, findings }) =>
    askJob<null, { listSha256: string; count: number }>(
      run,
      ctx,
      job(ctx, `select-${pass.pass}`, attempt, textSha256),
      passAsk(ctx, pass, textSha256, findings),
      async ({ asked }) => {
        const check = await acceptSelections.executeWithOptions({ summary: `check the selections for ${ctx.note}` }, [
          { runDir: prepared.runDir, dir: asked.dir, textSha256 },
        ]);
        return check.ok ? { kind: 'checked', accepted: [check], findings: [] } : { kind: 'checked', accepted: [], findings: check.findings };
      },
    ),
  );
  await guardStep(run, ctx);
  if (!selected || selected.count === 0) return { textSha256, record: { pass: pass.pass, result: 'nothing selected' } };
  let listSha256 = selected.listSha256;
  let findings: Finding[] = [];
  for (;;) {
    run.decisions += 1;
    const proposal = await writeSelectionProposal.executeWithOptions({ summary: `write the selection proposal for ${ctx.note}` }, [
      { runId: prepared.runId, runDir: prepared.runDir, note: ctx.note, textSha256, pass, listSha256, stop: run.decisions, findings },
    ]);
    run.at(`awaiting approval of the ${pass.pass} selections`);
    const answer = await run.lifecycle.decide(
      proposal,
      `the ${pass.pass} pass selected ${selected.count} span${selected.count === 1 ? '' : 's'}: edit ${proposal.path} if you like, then approve it`,
    );
    const applied = await applyAnswer.executeWithOptions({ summary: `apply the approved selections to ${ctx.note}` }, [
      { runDir: prepared.runDir, checkout: ctx.checkout, note: ctx.note, textSha256, proposal, listSha256, answerText: answer.text },
    ]);
    if (applied.kind === 'applied') {
      const detail = [
        applied.rejected.length > 0 && `rejected ${applied.rejected.join(', ')}`,
        applied.edited.length > 0 && `edited ${applied.edited.join(', ')}`,
      ]
        .filter(Boolean)
        .join('; ');
      return {
        textSha256: applied.textSha256,
        record: {
          pass: pass.pass,
          result: `${applied.accepted.length} of ${applied.accepted.length + applied.rejected.length} selections applied${detail ? ` (${detail})` : ''}`,
        },
      };
    }
    listSha256 = applied.listSha256;
    findings = applied.findings;
  }
}

/** Simplification passes from `--plan` or an assessment's plan (`--assess`, run without a plan approval); selection passes propose their lists. */
export async function revise(input: ReviseInput): Promise<EditSummary> {
  return editRun('revise', input, (run, ctx) => reviseNote(run, input, ctx));
}

async function reviseNote(run: EditRun, input: ReviseInput, ctx: RunContext): Promise<EditSummary> {
  const { prepared } = ctx;

  let plan: Plan | undefined = prepared.plan;
  if (input.options.mode === 'assess') {
    run.at('assessing: choosing the passes');
    const [assessed] = await untilAccepted(run, 'the assessment', null, prepared.profile.attempts, ({ attempt, findings }) =>
      askJob<null, Plan>(
        run,
        ctx,
        job(ctx, 'assess', attempt, prepared.startSha256),
        (seq) =>
          prepareAssessAsk.executeWithOptions({ summary: `write the assessment ask for ${input.note}` }, [
            { runId: prepared.runId, runDir: prepared.runDir, note: input.note, textSha256: prepared.startSha256, seq, findings },
          ]),
        async ({ asked }) => {
          const check = await acceptPlan.executeWithOptions({ summary: `check the assessment's plan` }, [{ runDir: prepared.runDir, dir: asked.dir }]);
          return check.ok ? { kind: 'checked', accepted: [check.plan], findings: [] } : { kind: 'checked', accepted: [], findings: check.findings };
        },
      ),
    );
    plan = assessed;
    await guardStep(run, ctx);
  }
  if (!plan) throw ApplicationFailure.create({ type: 'bad-edit-input', nonRetryable: true, message: 'a revision runs a plan: --plan FILE or --assess' });

  let current = prepared.startSha256;
  const passes: PassRecord[] = [];
  for (const [index, pass] of plan.passes.entries()) {
    run.at(`pass ${index + 1} of ${plan.passes.length}: ${pass.pass}`);
    if (isSelectionPass(pass.pass)) {
      const done = await selectionPass(run, ctx, pass, current);
      current = done.textSha256;
      passes.push(done.record);
    } else {
      const edited = await directPass(run, ctx, pass, current);
      if (edited.kind === 'edit') current = edited.textSha256;
      passes.push({ pass: pass.pass, result: edited.kind === 'edit' ? 'edited the text' : 'no change' });
    }
    await guardStep(run, ctx);
  }

  return packetStep(run, ctx, {
    kind: 'revise',
    finalSha256: current,
    decision: current === prepared.startSha256 ? 'no-edit' : 'edit',
    units: [],
    startReviews: [],
    finalReviews: [],
    rationaleSha256: null,
    passes,
  });
}
