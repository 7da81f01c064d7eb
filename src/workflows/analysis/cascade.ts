/** The correction cascade: a verifier is asked again only when a subject's bytes changed, so never twice what it already answered. */
import type { CheckRecord, MemberRecord } from '../../analysis/progress.js';
import { applyVerdict, budgetStop, changedReads, changedSubjects, without } from '../../analysis/decisions.js';
import { RECONCILIATION, REPORT_GROUP, REPORT_VERIFICATION } from '../../analysis/roles.js';
import { produce, type AskSpec } from './produce.js';
import { badRun, io, type AnalysisRun } from './run.js';

/** Re-checks every accepted member of `group` against the others as they stand; a member that fails is re-asked with the findings, until all pass. */
export async function recheck(run: AnalysisRun, kind: CheckRecord['kind'], group: readonly string[]): Promise<void> {
  const { input, plan } = run;
  for (;;) {
    run.checkRounds += 1;
    const round = run.checkRounds;
    const snapshot = run.current();
    const roles = group.filter((role) => run.members[role] !== undefined);
    const outcomes = await Promise.all(
      roles.map(async (role) => {
        const member = run.members[role] as MemberRecord;
        const check = await run.withStops(() =>
          io(`${kind} ${role}`).checkCandidate({
            runDir: input.runDir,
            worktree: input.worktree,
            role,
            checkId: `${kind}-${round}`,
            layoutFile: plan.layout.file,
            layoutSha256: plan.layout.sha256,
            candidate: { kind: 'member', sha256: member.sha256 },
            snapshot: without(snapshot, role),
            checks: run.roleOf(role).checks.filter((check) => check !== 'keeps-records'),
            ...(role === plan.frozenSource && { frozenSource: run.frozen.identity }),
            install: false,
          }),
        );
        run.checks.push({
          role,
          sha256: member.sha256,
          kind,
          round,
          passed: check.passed,
          findings: check.findings.slice(0, 5),
          findingsCount: check.findingsCount,
          at: run.now(),
        });
        return { role, check };
      }),
    );
    const failing = outcomes.filter((outcome) => !outcome.check.passed);
    if (failing.length === 0) return;
    for (const { role } of failing) run.members[role] = { ...(run.members[role] as MemberRecord), check: 'failed' };
    await Promise.all(
      failing.map(({ role, check }) =>
        produce(run, role, snapshot, {
          kind: 're-ask',
          reason: `failed the ${kind} against the members as they stand`,
          ...(check.findingsSha256 !== undefined && { findingsSha256: check.findingsSha256 }),
        }),
      ),
    );
  }
}

/** Reconciliation again, fresh, when the members it was written from changed. */
export async function reconcileIfChanged(run: AnalysisRun): Promise<void> {
  const reconciliation = run.members[RECONCILIATION];
  if (reconciliation === undefined) return;
  const changed = changedReads(reconciliation, run.members, run.roleOf(RECONCILIATION).reads);
  if (changed.length === 0) return;
  run.enter('reconciliation again');
  await produce(run, RECONCILIATION, run.current(), { kind: 'fresh', reason: `its inputs changed: ${changed.join(', ')}`, changed });
}

/** A refusal asks the refused authors for corrections (the refused bytes are rejected by their check), re-checks, reconciles, and asks again. */
export async function verify(run: AnalysisRun, verifier: string, label: string): Promise<void> {
  const subjects = run.roleOf(verifier).verifies;
  let spec: AskSpec = { kind: 'write' };
  for (;;) {
    run.enter(label);
    const snapshot = run.current();
    const { member, check } = await produce(run, verifier, snapshot, spec);
    const verdict = check.verdict;
    if (verdict === undefined) throw badRun('bad-run', `${verifier}'s accepted document carries no verdict`);
    Object.assign(run.members, applyVerdict(run.members, snapshot, verifier, subjects, verdict.refused));
    if (verdict.refused.length === 0) return;
    for (const subject of verdict.refused) {
      const handed = snapshot[subject];
      if (handed !== undefined) run.refused[subject] = [...(run.refused[subject] ?? []), handed];
    }
    const budget = run.budgets[verifier] as { used: number; max: number };
    if (budget.used >= budget.max) {
      await run.lifecycle.halt(
        budgetStop(
          verifier,
          budget.max,
          `it refused ${verdict.refused.join(', ')} on its last attempt, so no correction could be verified`,
          `${check.dir}/check.json`,
        ),
      );
    }
    run.enter(`corrections for ${verifier}`);
    const corrections = run.current();
    await Promise.all(
      verdict.refused.map((subject) =>
        produce(run, subject, corrections, { kind: 'correction', reason: `refused by ${verifier}`, refusal: { verifier, verdictSha256: member.sha256 } }),
      ),
    );
    if (verifier === REPORT_VERIFICATION) {
      run.enter('re-check');
      await recheck(run, 're-check', REPORT_GROUP);
      await reconcileIfChanged(run);
    }
    const changed = changedSubjects(run.members, snapshot, subjects);
    if (changed.length === 0) {
      // Asking the verifier again would hand it exactly what it refused: its answer stands, and the run ends.
      await run.lifecycle.halt(
        budgetStop(
          verifier,
          budget.max,
          `the corrections left every subject as it refused them (${verdict.refused.join(', ')}), so asking it again would ask what it answered`,
          `${check.dir}/check.json`,
        ),
      );
    }
    spec = { kind: 'fresh', reason: `its subjects changed: ${changed.join(', ')}`, changed };
  }
}
