/** Each ask that ran spends one attempt; a stop spends none; an answer key already answered in the run is checked again, not launched. */
import type { CheckOutcome } from '../../activities/analysis/types.js';
import { budgetStop, checkoutStop, rejectedReason, strayStop, without, type Snapshot } from '../../analysis/decisions.js';
import type { AttemptRecord, FindingRecord, MemberRecord } from '../../analysis/progress.js';
import type { PlanRole } from '../../analysis/plan.js';
import { askRole, spentBy, type Asked, type AskSpec } from './ask-role.js';
import { badRun, io, type AnalysisRun } from './run.js';

export type { AskSpec } from './ask-role.js';

export interface Produced {
  member: MemberRecord;
  check: CheckOutcome;
}

const clipFindings = (list: readonly FindingRecord[]) => list.slice(0, 5);

/** Asks a role until a candidate passes its check against the snapshot its round began with. */
export async function produce(run: AnalysisRun, name: string, snapshot: Snapshot, first: AskSpec): Promise<Produced> {
  const role = run.roleOf(name);
  const budget = run.budgets[name] as { used: number; max: number };
  let spec = first;
  let why = '';
  let evidence: string | undefined;
  for (;;) {
    if (budget.used >= budget.max) {
      await run.lifecycle.halt(budgetStop(name, budget.max, why, evidence));
      throw badRun('bad-run', `${name}: budget exhausted`); // unreachable: an ending stop never returns
    }
    const result = await askRole(run, name, role, snapshot, spec);
    if (result.kind === 'again') continue; // a stop was resumed: the same ask again, no attempt spent
    if (result.kind === 'spent') {
      why = result.why;
      evidence = result.evidence;
      continue;
    }
    const { asked } = result;
    const check = await checkAnswer(run, name, role, snapshot, asked);
    if (check.passed) {
      const member: MemberRecord = {
        role: name,
        path: role.path,
        sha256: check.sha256,
        size: check.size,
        check: 'passed',
        handed: Object.fromEntries(role.reads.map((read) => [read, snapshot[read] as string])),
        attempt: asked.attempt,
        launchId: asked.launchId,
        profile: asked.answer.profile,
        model: asked.answer.model,
        modelSource: asked.answer.modelSource,
      };
      run.members[name] = member;
      run.lifecycle.show();
      return { member, check };
    }
    why = `its last candidate was rejected: ${check.findings[0]?.message ?? 'see the findings'}`;
    evidence = `${check.dir}/findings.md`;
    spec = {
      ...spec,
      kind: spec.kind === 'write' ? 're-ask' : spec.kind,
      reason: rejectedReason(spec.kind, spec.reason),
      ...(check.findingsSha256 !== undefined && { findingsSha256: check.findingsSha256 }),
    };
  }
}

/** Checks an answer in the role against the snapshot; records the attempt, the answer under its key, and stray writes it revealed. */
async function checkAnswer(run: AnalysisRun, name: string, role: PlanRole, snapshot: Snapshot, asked: Asked): Promise<CheckOutcome> {
  const { plan, input } = run;
  const incumbent = run.members[name];
  const refused = run.refused[name];
  const check = await run.withStops(() =>
    io(`check ${name} attempt ${asked.attempt}`).checkCandidate({
      runDir: input.runDir,
      worktree: input.worktree,
      role: name,
      checkId: asked.answeredBy === undefined ? `launch-${asked.launch}` : `attempt-${asked.attempt}-answered-by-${asked.launch}`,
      layoutFile: plan.layout.file,
      layoutSha256: plan.layout.sha256,
      candidate: asked.candidate,
      snapshot: without(snapshot, name),
      ...(incumbent !== undefined && { incumbent: incumbent.sha256 }),
      ...(refused !== undefined && refused.length > 0 && { refused: [...refused] }),
      checks: [...role.checks],
      ...(name === plan.frozenSource && { frozenSource: run.frozen.identity }),
      install: true,
      ...(asked.checkoutBaseline !== undefined && { checkoutBaseline: { checkout: input.checkout, file: asked.checkoutBaseline } }),
    }),
  );
  run.answers.set(asked.key, { launch: asked.launch, launchId: asked.launchId, result: asked.answer, sha256: check.sha256 });
  // Parallel launches share the worktree, so a stray write is reported once, by the first check that sees it.
  const strays = check.strays.filter((stray) => !run.reportedStrays.has(stray));
  const outside = (check.checkoutChanges ?? []).filter((path) => !run.reportedStrays.has(`checkout:${path}`));
  const index = run.attempts.length;
  recorded(run, asked, check);
  if (strays.length === 0 && outside.length === 0) return check;
  for (const stray of strays) run.reportedStrays.add(stray);
  for (const path of outside) run.reportedStrays.add(`checkout:${path}`);
  const stop =
    strays.length > 0
      ? strayStop(strays, run.lifecycle.stage, name, asked.attempt, input.worktree)
      : checkoutStop(outside, name, asked.attempt, asked.launchId, input.checkout);
  await run.lifecycle.halt(stop);
  // The answer of a launch that wrote outside its outputs is not accepted: once resumed, the role is asked again.
  run.answers.delete(asked.key);
  const notAccepted: CheckOutcome = { ...check, passed: false, findings: [{ rule: 'stray-write', severity: 'fail', message: stop.reason }, ...check.findings] };
  run.attempts.splice(index, 1);
  recorded(run, asked, notAccepted);
  run.attempts.splice(index, 0, run.attempts.pop() as AttemptRecord);
  return notAccepted;
}

/** Records the attempt as its check came out, and returns the check. */
function recorded(run: AnalysisRun, asked: Asked, check: CheckOutcome): CheckOutcome {
  run.attempts.push({
    ...asked.base,
    ...(asked.answeredBy !== undefined && { answeredBy: asked.answeredBy, dir: check.dir }),
    attempt: asked.attempt,
    outcome: check.passed ? 'accepted' : 'rejected',
    findings: clipFindings(check.findings),
    findingsCount: check.findingsCount,
    sha256: check.sha256,
    model: asked.answer.model,
    durationMs: asked.answeredBy === undefined ? asked.answer.durationMs : 0,
    ...(asked.answeredBy === undefined && spentBy(asked.answer)),
    ...(check.verdict !== undefined && { verdict: { accepted: check.verdict.accepted, refused: check.verdict.refused, blockers: check.verdict.blockers } }),
  });
  return check;
}
