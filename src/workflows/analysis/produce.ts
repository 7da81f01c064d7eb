/**
 * `produce`: asks a role until a candidate passes its check against the snapshot its round began
 * with. Each ask that ran spends one attempt; a stop (usage limit, failed relaunches, a changed
 * environment) waits for the resume and spends none; an ask whose answer key was already answered
 * in this run is not launched — the recorded answer is checked again.
 */
import type { CheckCandidate, CheckOutcome } from '../../activities/analysis/types.js';
import { answerKey, budgetStop, checkoutStop, rejectedReason, strayStop, without, type Snapshot } from '../../analysis/decisions.js';
import { jobLines } from '../../analysis/job.js';
import type { AskKind, AttemptOutcome, AttemptRecord, FindingRecord, InFlightLaunch, MemberRecord } from '../../analysis/progress.js';
import { composePrompt } from '../../analysis/prompt.js';
import type { PlanRole } from '../../analysis/plan.js';
import { stopFor } from '../../runs/stop.js';
import { launchCost } from '../../harness/prices.js';
import type { LaunchResult } from '../../harness/launch-contract.js';
import { askWithin } from '../asking/ask.js';
import { badRun, io, type AnalysisRun, type Answer } from './run.js';

/** What an ask hands the worker beyond its inputs. */
export interface AskSpec {
  kind: AskKind;
  reason?: string;
  findingsSha256?: string;
  refusal?: { verifier: string; verdictSha256: string };
  changed?: string[];
}

export interface Produced {
  member: MemberRecord;
  check: CheckOutcome;
}

/** One ask of a role that came to an answer to check: launched now, or answered by an earlier launch with its key. */
interface Asked {
  launch: number;
  launchId: string;
  dir: string;
  attempt: number;
  candidate: CheckCandidate;
  answer: Answer['result'];
  key: string;
  answeredBy?: string;
  /** The main checkout's snapshot as the launch began (runs that guard it). */
  checkoutBaseline?: string;
  base: Pick<AttemptRecord, 'role' | 'launch' | 'launchId' | 'kind' | 'reason' | 'dir' | 'at'>;
}

type AskResult = { kind: 'answered'; asked: Asked } | { kind: 'again' } | { kind: 'spent'; why: string; evidence: string };

const clipFindings = (list: readonly FindingRecord[]) => list.slice(0, 5);

/** Asks a role until a candidate passes its check against `snapshot`, re-asking with the findings. */
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

/** The members a role is handed, from the snapshot its round began with. */
function handedMembers(run: AnalysisRun, name: string, role: PlanRole, snapshot: Snapshot) {
  return role.reads.map((read) => {
    const sha256 = snapshot[read];
    if (sha256 === undefined) throw badRun('bad-plan', `${name} reads ${read}, which has no accepted member yet`);
    return { role: read, path: run.roleOf(read).path, sha256 };
  });
}

/** One ask of a role: the recorded answer when its key was answered, otherwise a launch in a prepared directory. */
async function askRole(run: AnalysisRun, name: string, role: PlanRole, snapshot: Snapshot, spec: AskSpec): Promise<AskResult> {
  const { plan, input } = run;
  const budget = run.budgets[name] as { used: number; max: number };
  const attempt = budget.used + 1;
  const handed = handedMembers(run, name, role, snapshot);
  const values = { run: input.runId, system: run.run.parameters.system, source: run.frozen.identity, capture: run.frozen.captureDir, command: run.run.command };
  const lines = jobLines(plan, role, values, {
    ...(spec.findingsSha256 !== undefined && { findings: true }),
    ...(spec.refusal !== undefined && { refusal: true }),
    ...(spec.changed !== undefined && { changed: spec.changed }),
  });
  const prompt = composePrompt({ instruction: role.instruction.text, lines, section: plan.section.text });
  const key = answerKey({
    prompt,
    inputs: {
      ...Object.fromEntries(handed.map((entry) => [entry.role, entry.sha256])),
      ...(spec.findingsSha256 !== undefined && { findings: spec.findingsSha256 }),
      ...(spec.refusal !== undefined && { refusal: spec.refusal.verdictSha256 }),
    },
    outputs: role.outputs,
    profile: run.run.profile.name,
  });
  const answered = run.answers.get(key);
  if (answered !== undefined) {
    budget.used += 1;
    const base = {
      role: name,
      launch: answered.launch,
      launchId: answered.launchId,
      kind: spec.kind,
      ...(spec.reason !== undefined && { reason: spec.reason }),
      dir: '',
      at: run.now(),
    };
    const candidate: CheckCandidate = { kind: 'member', sha256: answered.sha256 };
    return { kind: 'answered', asked: { ...base, attempt, candidate, answer: answered.result, key, answeredBy: answered.launchId, base } };
  }

  // A launch that would take the run past its cap is not prepared: the run stops until resumed with a higher one.
  const over = run.lifecycle.spend.over();
  if (over !== undefined) {
    await run.lifecycle.halt(over);
    return { kind: 'again' };
  }
  const launch = (run.launches[name] ?? 0) + 1;
  run.launches[name] = launch;
  const launchId = `${run.workflowId}/${name}/${launch}`;
  const { dir, checkoutBaseline } = await run.withStops(() =>
    io(`prepare ${name} attempt ${attempt}`).prepareLaunch({
      runDir: input.runDir,
      checkout: input.checkout,
      role: name,
      launch,
      prompt,
      handed,
      ...(spec.findingsSha256 !== undefined && { findingsSha256: spec.findingsSha256 }),
      ...(spec.refusal !== undefined && {
        refusal: { ...spec.refusal, subjects: [...run.roleOf(spec.refusal.verifier).verifies], roles: plan.layout.roles.map((entry) => entry.name) },
      }),
      feedback: [...role.feedback],
      type: role.type,
      ...(plan.layout.recordId !== undefined && { recordId: plan.layout.recordId }),
      cites: [...role.cites],
    }),
  );
  const flight: InFlightLaunch = { role: name, launchId, kind: spec.kind, since: run.now() };
  run.inFlight.push(flight);
  run.lifecycle.show();
  // Checked again where it launches: a parallel branch may have started a launch since (the estimate counts those in flight).
  const outcome = await askWithin(
    run.lifecycle.spend,
    { launchId, profile: run.run.profile, dir, prompt, outputs: [...role.outputs] },
    `${name} attempt ${attempt}${spec.kind === 'write' ? '' : ` (${spec.kind})`}`,
  );
  run.inFlight.splice(run.inFlight.indexOf(flight), 1);
  if (outcome.status === 'spend-limit') {
    await run.lifecycle.halt(outcome.stop);
    return { kind: 'again' };
  }
  const base = { role: name, launch, launchId, kind: spec.kind, ...(spec.reason !== undefined && { reason: spec.reason }), dir, at: run.now() };

  const stop = stopFor(outcome);
  if (stop !== undefined) {
    run.attempts.push({
      ...base,
      attempt: null,
      outcome: outcome.status as AttemptOutcome,
      findings: [{ rule: outcome.status, severity: 'fail', message: stop.reason }],
      findingsCount: 1,
    });
    await run.lifecycle.halt({ ...stop, evidence: stop.evidence !== undefined ? `${dir}/${stop.evidence}` : `${dir}/.launch` });
    return { kind: 'again' };
  }
  budget.used += 1;
  if (outcome.status !== 'completed') {
    if (outcome.status !== 'timed-out' && outcome.status !== 'incomplete') throw badRun('bad-run', `launch ${launchId} came to ${outcome.status}`);
    const result = outcome.result;
    const why =
      outcome.status === 'timed-out'
        ? `its last launch timed out after ${Math.round(result.durationMs / 1000)} s`
        : `its last launch did not write ${result.missing.join(', ')}`;
    run.attempts.push({
      ...base,
      attempt,
      outcome: outcome.status,
      findings: [{ rule: outcome.status, severity: 'fail', message: why.replace(/^its last launch/, 'the launch') }],
      findingsCount: 1,
      durationMs: result.durationMs,
      model: result.model,
      ...spentBy(result),
    });
    return { kind: 'spent', why, evidence: `${dir}/${result.logDir}` };
  }
  const output = outcome.result.outputs.find((entry) => entry.path === role.outputs[0]);
  if (output === undefined) throw badRun('bad-run', `launch ${launchId} reported no ${role.outputs[0]}`);
  const candidate: CheckCandidate = { kind: 'output', dir, output: output.path, sha256: output.sha256 };
  return {
    kind: 'answered',
    asked: { launch, launchId, dir, attempt, candidate, answer: outcome.result, key, base, ...(checkoutBaseline !== undefined && { checkoutBaseline }) },
  };
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

/** What one launch spent, for its attempt record. */
function spentBy(result: LaunchResult): { costUsd: number | null; tokens: { input: number; output: number } } {
  return { costUsd: launchCost(result).costUsd, tokens: { input: result.usage?.inputTokens ?? 0, output: result.usage?.outputTokens ?? 0 } };
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
