/**
 * One ask of a role, for `produce` (produce.ts): what is asked (the members handed, the prompt, its
 * answer key); the recorded answer when that key was already answered in this run (not launched
 * again); otherwise a launch in a prepared directory under the run's cap. A stop (usage limit,
 * failed relaunches, a changed environment) waits for the resume and spends no attempt; a launch
 * that ran spends one.
 */
import type { CheckCandidate } from '../../activities/analysis/types.js';
import { answerKey, type Snapshot } from '../../analysis/decisions.js';
import { jobLines } from '../../analysis/job.js';
import type { AskKind, AttemptOutcome, AttemptRecord, InFlightLaunch } from '../../analysis/progress.js';
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

/** One ask of a role that came to an answer to check: launched now, or answered by an earlier launch with its key. */
export interface Asked {
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

export type AskResult = { kind: 'answered'; asked: Asked } | { kind: 'again' } | { kind: 'spent'; why: string; evidence: string };

/** The members a role is handed, from the snapshot its round began with. */
function handedMembers(run: AnalysisRun, name: string, role: PlanRole, snapshot: Snapshot) {
  return role.reads.map((read) => {
    const sha256 = snapshot[read];
    if (sha256 === undefined) throw badRun('bad-plan', `${name} reads ${read}, which has no accepted member yet`);
    return { role: read, path: run.roleOf(read).path, sha256 };
  });
}

/** What an ask is: the members it is handed, its prompt (the role's instruction, its job lines, the section), and the answer key they make. */
function composeAsk(run: AnalysisRun, name: string, role: PlanRole, snapshot: Snapshot, spec: AskSpec) {
  const { plan, input } = run;
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
  return { handed, prompt, key };
}

/** One ask of a role: the recorded answer when its key was answered, otherwise a launch in a prepared directory. */
export async function askRole(run: AnalysisRun, name: string, role: PlanRole, snapshot: Snapshot, spec: AskSpec): Promise<AskResult> {
  const budget = run.budgets[name] as { used: number; max: number };
  const attempt = budget.used + 1;
  const { handed, prompt, key } = composeAsk(run, name, role, snapshot, spec);
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
  const { dir, checkoutBaseline } = await run.withStops(() => prepareDir(run, name, role, spec, { launch, attempt, prompt, handed }));
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

/** The launch's directory, prepared by the worker: the prompt, the members handed, and what the role's feedback and checks read. */
function prepareDir(
  run: AnalysisRun,
  name: string,
  role: PlanRole,
  spec: AskSpec,
  ask: { launch: number; attempt: number; prompt: string; handed: ReturnType<typeof handedMembers> },
) {
  const { plan, input } = run;
  return io(`prepare ${name} attempt ${ask.attempt}`).prepareLaunch({
    runDir: input.runDir,
    checkout: input.checkout,
    role: name,
    launch: ask.launch,
    prompt: ask.prompt,
    handed: ask.handed,
    ...(spec.findingsSha256 !== undefined && { findingsSha256: spec.findingsSha256 }),
    ...(spec.refusal !== undefined && {
      refusal: { ...spec.refusal, subjects: [...run.roleOf(spec.refusal.verifier).verifies], roles: plan.layout.roles.map((entry) => entry.name) },
    }),
    feedback: [...role.feedback],
    type: role.type,
    ...(plan.layout.recordId !== undefined && { recordId: plan.layout.recordId }),
    cites: [...role.cites],
  });
}

/** What one launch spent, for its attempt record. */
export function spentBy(result: LaunchResult): { costUsd: number | null; tokens: { input: number; output: number } } {
  return { costUsd: launchCost(result).costUsd, tokens: { input: result.usage?.inputTokens ?? 0, output: result.usage?.outputTokens ?? 0 } };
}
