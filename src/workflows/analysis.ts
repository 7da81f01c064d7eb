import {
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  condition,
  defineQuery,
  defineUpdate,
  patched,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  workflowInfo,
  type ActivityOptions,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { CheckOutcome, EnvironmentChangedDetails, EnvironmentOutcome, OpenedRun, PublicationOutcome } from '../activities/analysis/types.js';
import type { Disposition } from '../kb/layouts.js';
import { jobLines, type JobValues } from '../analysis/job.js';
import { manifestMember, type Manifest, type ManifestStatus, type PublicationRecord } from '../analysis/manifest.js';
import type { Plan, PlanRole } from '../analysis/plan.js';
import type {
  AnalysisInput,
  AnalysisProgress,
  AnalysisResult,
  AnalysisStatus,
  AskKind,
  AttemptOutcome,
  AttemptRecord,
  CheckRecord,
  FindingRecord,
  FrozenSource,
  InFlightLaunch,
  MemberRecord,
} from '../analysis/progress.js';
import { composePrompt } from '../analysis/prompt.js';
import {
  BOUNDARY,
  LENSES,
  MEMORY_PROFILE,
  PROFILE_VERIFICATION,
  RECONCILIATION,
  REPORT_GROUP,
  REPORT_VERIFICATION,
  RUNTIME_REPORT,
  SYNTHESIS,
  SYNTHESIS_VERIFICATION,
} from '../analysis/roles.js';
import { ask } from './helpers/ask.js';
import { recordStatus } from './helpers/status.js';
import { stopFor, type Stop } from './helpers/stops.js';

export const progressQuery = defineQuery<AnalysisProgress>('progress');
/** Continues a stopped run; its validator refuses when there is nothing to resume (a run that is not stopped, or an exhausted budget). */
export const resumeUpdate = defineUpdate<AnalysisProgress, []>('resume');

const permanent = ['bad-plan', 'bad-profile', 'bad-run', 'environment-changed'];

/** Runs begun before publication was part of the workflow end at assembly; this patch marks those that publish. */
export const PUBLICATION_PATCH = 'analysis-publication';

/** The analysis activities with a summary the Web UI shows on the event. */
function io(summary: string, options: Partial<ActivityOptions> = {}) {
  return proxyActivities<Activities>({
    startToCloseTimeout: '5m',
    retry: { maximumAttempts: 3, nonRetryableErrorTypes: permanent },
    summary,
    ...options,
  });
}

/** Accepted members as a round begins: role → SHA-256. */
type Snapshot = Record<string, string>;

/** What an ask hands the worker beyond its inputs. */
interface AskSpec {
  kind: AskKind;
  reason?: string;
  findingsSha256?: string;
  refusal?: { verifier: string; verdictSha256: string };
  changed?: string[];
}

interface Produced {
  member: MemberRecord;
  check: CheckOutcome;
}

/**
 * One analysis run, in order as ordinary calls: opening and acquisition, the boundary (which may
 * end the run out of scope or blocked), the runtime report, the three lens reports in parallel,
 * reconciliation, the report check and report verification with its correction cascade, the
 * memory profile and its verification, the synthesis and its verification, then assembly.
 * Every candidate is checked in code against the snapshot its round began with; a stop waits
 * for the `resume` Update and asks nothing that completed again.
 */
export async function analysis(input: AnalysisInput): Promise<AnalysisResult> {
  const { workflowId } = workflowInfo();
  const now = () => new Date(Date.now()).toISOString();
  const startedAt = now();

  let status: AnalysisStatus = 'running';
  let stage = 'opening';
  let stops: Stop[] = [];
  let resumesAt: string | undefined;
  let resumeCount = 0;
  let resuming = false;
  let resumes = 0;
  let opened: OpenedRun | undefined = undefined;
  let source: FrozenSource | undefined = undefined;
  let disposition: Disposition | undefined;
  let manifestPath: string | undefined;
  /** The destination while the run publishes: the environment assertion leaves publication's own writes alone. */
  let publishing: string | undefined;
  let publication: PublicationRecord | undefined;
  const budgets: Record<string, { used: number; max: number }> = {};
  const launches: Record<string, number> = {};
  const members: Record<string, MemberRecord> = {};
  const attempts: AttemptRecord[] = [];
  const checks: CheckRecord[] = [];
  const inFlight: InFlightLaunch[] = [];
  let checkRounds = 0;
  /** Stray paths already reported by an environment stop; forgotten once a resume finds the worktree clean. */
  const reportedStrays = new Set<string>();

  const progress = (): AnalysisProgress => ({
    runId: input.runId,
    workflowId,
    system: opened?.parameters.system ?? '',
    profile: opened?.profile.name ?? '',
    status,
    stage,
    ...(disposition !== undefined && { disposition }),
    stops,
    ...(resumesAt !== undefined && { resumesAt }),
    autoResume: input.autoResume,
    ...(source !== undefined && { source }),
    budgets,
    members,
    attempts,
    checks,
    inFlight,
    resumes,
    ...(manifestPath !== undefined && { manifest: manifestPath }),
    ...(publication !== undefined && { publication }),
    runDir: input.runDir,
    startedAt,
    updatedAt: now(),
  });

  const next = `commonplace analysis run ${input.runId}`;
  const details = (): void => {
    const budgetLine = Object.entries(budgets)
      .filter(([, budget]) => budget.used > 0)
      .map(([role, budget]) => `${role} ${budget.used}/${budget.max}`)
      .join(', ');
    const lines = [`**${stage}** — run ${input.runId}${opened ? ` of ${opened.parameters.system}` : ''}`];
    if (inFlight.length > 0) lines.push(`asking: ${inFlight.map((launch) => launch.launchId.split('/').slice(-2).join(' #')).join(', ')}`);
    if (budgetLine) lines.push(`attempts used: ${budgetLine}`);
    for (const stop of stops) {
      lines.push(`**stopped: ${stop.kind}** (${stop.disposition}) — ${stop.reason}${stop.evidence ? `\n\nevidence: \`${stop.evidence}\`` : ''}`);
    }
    if (resumesAt) lines.push(`goes on by itself at ${resumesAt}`);
    else if (stops.some((stop) => stop.kind !== 'budget-exhausted')) lines.push(`resume: \`${next}\``);
    setCurrentDetails(lines.join('\n\n'));
  };

  const manifest = (state: ManifestStatus): Manifest => {
    const order = opened?.plan.layout.roles.map((role) => role.name) ?? [];
    const current = Object.values(members).sort((a, b) => order.indexOf(a.role) - order.indexOf(b.role));
    const parameters = opened?.parameters;
    return {
      run: input.runId,
      system: parameters?.system ?? '',
      status: state,
      ...(disposition !== undefined && { disposition }),
      layout: parameters?.layout ?? '',
      layoutSha256: parameters?.layoutSha256 ?? '',
      plan: parameters?.plan ?? '',
      planSha256: parameters?.planSha256 ?? '',
      preparationCommit: parameters?.preparationCommit ?? '',
      ...(source !== undefined && { source: source.identity }),
      files: Object.fromEntries(current.map((member) => [member.path, member.sha256])),
      members: current.map(manifestMember),
      updatedAt: now(),
    };
  };

  // Records are written one after another, so run.json always ends as the newest state.
  let recording: Promise<void> = Promise.resolve();
  const record = (state: ManifestStatus = status === 'stopped' ? 'stopped' : 'running', fixed?: Manifest): Promise<void> => {
    const snapshot = { runDir: input.runDir, progress: progress(), manifest: fixed ?? manifest(state) };
    recording = recording.then(() => io('record the run').recordRun(snapshot));
    return recording;
  };
  // Stages show in current details and the progress query; run.json is written at start, at each stop and resume, and at the end.
  const enter = (name: string): void => {
    stage = name;
    details();
  };

  // Stops and resume.

  const environmentStop = (outcome: EnvironmentOutcome | EnvironmentChangedDetails, what = 'the environment changed'): Stop => ({
    kind: 'environment-changed',
    disposition: 'operator',
    reason: `${what}: ${outcome.problems[0] ?? 'see the evidence'}${outcome.problems.length > 1 ? ` (and ${outcome.problems.length - 1} more)` : ''}; restore it and resume, or prepare a new run`,
    ...(outcome.evidence !== undefined && { evidence: outcome.evidence }),
  });

  const resume = async (): Promise<void> => {
    resuming = true;
    try {
      const environment = await io('assert the environment on resume').assertEnvironment({ runDir: input.runDir, worktree: input.worktree, ...(publishing !== undefined && { publishing }) });
      if (!environment.ok) {
        stops = [...stops.filter((stop) => stop.kind === 'budget-exhausted'), environmentStop(environment)];
        resumesAt = undefined;
        details();
        await record('stopped');
        return;
      }
      stops = stops.filter((stop) => stop.kind === 'budget-exhausted');
      reportedStrays.clear();
      resumesAt = undefined;
      resumes += 1;
      status = stops.length > 0 ? 'stopped' : 'running';
      recordStatus(status);
      resumeCount += 1;
      details();
      await record();
    } finally {
      resuming = false;
    }
  };

  /** Stops the run with this stop and returns once it is resumed (an exhausted budget never is). */
  const stopped = async (stop: Stop): Promise<void> => {
    stops = [...stops, stop];
    status = 'stopped';
    recordStatus('stopped');
    const seen = resumeCount;
    const resetAt = stop.resetAt ? Date.parse(stop.resetAt) : NaN;
    const waitMs = input.autoResume && stop.kind === 'usage-limit' && Number.isFinite(resetAt) ? Math.max(0, resetAt - Date.now()) + 60_000 : undefined;
    if (waitMs !== undefined) resumesAt = new Date(Date.now() + waitMs).toISOString();
    details();
    await record('stopped');
    if (stop.kind === 'budget-exhausted') {
      await condition(() => false); // the plan's budget is fixed for the run: only ending it (reset) moves on
    }
    if (waitMs !== undefined) {
      const resumed = await condition(() => resumeCount > seen, waitMs, { summary: `resume after the usage limit resets (${stop.resetAt})` });
      if (!resumed && !resuming && stops.includes(stop)) await resume();
    }
    await condition(() => resumeCount > seen);
  };

  setHandler(progressQuery, progress);
  setHandler(
    resumeUpdate,
    async () => {
      await resume();
      return progress();
    },
    {
      validator: () => {
        if (status !== 'stopped') {
          throw ApplicationFailure.create({ type: 'nothing-to-resume', nonRetryable: true, message: `run ${input.runId} is ${status} at ${stage}: there is nothing to resume` });
        }
        if (resuming) throw ApplicationFailure.create({ type: 'nothing-to-resume', nonRetryable: true, message: `run ${input.runId} is already resuming` });
        if (stops.every((stop) => stop.kind === 'budget-exhausted')) {
          throw ApplicationFailure.create({
            type: 'nothing-to-resume',
            nonRetryable: true,
            message: `run ${input.runId} cannot resume: ${stops.map((stop) => stop.reason).join('; ')}; the plan's budgets are fixed for a run, so it ends here (reset it and run again)`,
          });
        }
      },
    },
  );

  /** Runs activity work; an environment change it reports stops the run, and the work is retried once resumed. */
  const withStops = async <T>(work: () => Promise<T>): Promise<T> => {
    for (;;) {
      try {
        return await work();
      } catch (error) {
        const cause = error instanceof ActivityFailure ? error.cause : undefined;
        if (!(cause instanceof ApplicationFailure) || cause.type !== 'environment-changed') throw error;
        const detail = (cause.details?.[0] as EnvironmentChangedDetails | undefined) ?? { problems: [cause.message], evidence: input.runDir };
        await stopped(environmentStop(detail, 'run state changed'));
      }
    }
  };

  const ensureEnvironment = async (when: string): Promise<void> => {
    const environment = await io(`assert the environment ${when}`).assertEnvironment({ runDir: input.runDir, worktree: input.worktree });
    if (!environment.ok) await stopped(environmentStop(environment));
  };

  // Opening.
  recordStatus('running');
  details();
  opened = await io('open the run').openAnalysis({
    runDir: input.runDir,
    worktree: input.worktree,
    ...(input.profilesFile !== undefined && { profilesFile: input.profilesFile }),
    ...(input.env !== undefined && { env: input.env }),
  });
  const run = opened;
  const plan: Plan = run.plan;
  for (const role of Object.values(plan.roles)) budgets[role.name] = { used: 0, max: role.attempts };
  await record();
  await ensureEnvironment('at start');

  enter('acquisition');
  source = await withStops(() => io('freeze the source', { startToCloseTimeout: '1h', heartbeatTimeout: '2m' }).acquireSource({ runDir: input.runDir }));
  const frozen = source;
  const values: JobValues = { run: input.runId, system: run.parameters.system, source: frozen.identity, capture: frozen.captureDir, command: run.command };

  const roleOf = (name: string): PlanRole => {
    const role = plan.roles[name];
    if (role === undefined) throw ApplicationFailure.create({ type: 'bad-plan', nonRetryable: true, message: `plan ${plan.file} has no role ${name}` });
    return role;
  };
  const current = (): Snapshot => Object.fromEntries(Object.values(members).map((member) => [member.role, member.sha256]));
  const without = (snapshot: Snapshot, role: string): Snapshot => Object.fromEntries(Object.entries(snapshot).filter(([name]) => name !== role));
  const clipFindings = (list: readonly FindingRecord[]) => list.slice(0, 5);

  const exhausted = async (role: string, why: string, evidence: string | undefined): Promise<never> => {
    const budget = budgets[role] as { used: number; max: number };
    await stopped({
      kind: 'budget-exhausted',
      disposition: 'operator',
      reason: `${role} has used all ${budget.max} of its attempts; ${why}`,
      ...(evidence !== undefined && { evidence }),
    });
    throw ApplicationFailure.create({ type: 'budget-exhausted', nonRetryable: true, message: `${role}: budget exhausted` }); // unreachable: an exhausted stop never resumes
  };

  /** Asks a role until a candidate passes its check against `snapshot`, re-asking with the findings; each ask that ran spends one attempt. */
  const produce = async (name: string, snapshot: Snapshot, first: AskSpec): Promise<Produced> => {
    const role = roleOf(name);
    const budget = budgets[name] as { used: number; max: number };
    let spec = first;
    let why = '';
    let evidence: string | undefined;
    for (;;) {
      if (budget.used >= budget.max) await exhausted(name, why, evidence);
      const launch = (launches[name] ?? 0) + 1;
      launches[name] = launch;
      const launchId = `${workflowId}/${name}/${launch}`;
      const attempt = budget.used + 1;
      const handed = role.reads.map((read) => {
        const sha256 = snapshot[read];
        if (sha256 === undefined) throw ApplicationFailure.create({ type: 'bad-plan', nonRetryable: true, message: `${name} reads ${read}, which has no accepted member yet` });
        return { role: read, path: roleOf(read).path, sha256 };
      });
      const lines = jobLines(plan, role, values, {
        ...(spec.findingsSha256 !== undefined && { findings: true }),
        ...(spec.refusal !== undefined && { refusal: true }),
        ...(spec.changed !== undefined && { changed: spec.changed }),
      });
      const prompt = composePrompt({ instruction: role.instruction.text, lines, section: plan.section.text });
      const { dir } = await withStops(() =>
        io(`prepare ${name} attempt ${attempt}`).prepareLaunch({
          runDir: input.runDir,
          role: name,
          launch,
          prompt,
          handed,
          ...(spec.findingsSha256 !== undefined && { findingsSha256: spec.findingsSha256 }),
          ...(spec.refusal !== undefined && { refusal: { ...spec.refusal, subjects: [...roleOf(spec.refusal.verifier).verifies], roles: plan.layout.roles.map((entry) => entry.name) } }),
          feedback: [...role.feedback],
          type: role.type,
          ...(plan.layout.recordId !== undefined && { recordId: plan.layout.recordId }),
          cites: [...role.cites],
        }),
      );
      const flight: InFlightLaunch = { role: name, launchId, kind: spec.kind, since: now() };
      inFlight.push(flight);
      details();
      const outcome = await ask({ launchId, profile: run.profile, dir, prompt, outputs: [...role.outputs] }, `${name} attempt ${attempt}${spec.kind === 'write' ? '' : ` (${spec.kind})`}`);
      inFlight.splice(inFlight.indexOf(flight), 1);
      const base = { role: name, launch, launchId, kind: spec.kind, ...(spec.reason !== undefined && { reason: spec.reason }), dir, at: now() };

      if (outcome.status === 'usage-limit' || outcome.status === 'launch-failed') {
        const stop = stopFor(outcome) as Stop;
        attempts.push({ ...base, attempt: null, outcome: outcome.status as AttemptOutcome, findings: [{ rule: outcome.status, severity: 'fail', message: stop.reason }], findingsCount: 1 });
        await stopped({ ...stop, evidence: stop.evidence !== undefined ? `${dir}/${stop.evidence}` : `${dir}/.launch` });
        continue; // the same ask again, in a new launch: no attempt was spent
      }
      budget.used += 1;
      if (outcome.status !== 'completed') {
        const result = outcome.result;
        why = outcome.status === 'timed-out' ? `its last launch timed out after ${Math.round(result.durationMs / 1000)} s` : `its last launch did not write ${result.missing.join(', ')}`;
        evidence = `${dir}/${result.logDir}`;
        attempts.push({ ...base, attempt, outcome: outcome.status, findings: [{ rule: outcome.status, severity: 'fail', message: why.replace(/^its last launch/, 'the launch') }], findingsCount: 1, durationMs: result.durationMs, model: result.model });
        continue;
      }
      const output = outcome.result.outputs.find((entry) => entry.path === role.outputs[0]);
      if (output === undefined) throw ApplicationFailure.create({ type: 'bad-run', nonRetryable: true, message: `launch ${launchId} reported no ${role.outputs[0]}` });
      const check = await withStops(() =>
        io(`check ${name} attempt ${attempt}`).checkCandidate({
          runDir: input.runDir,
          worktree: input.worktree,
          role: name,
          checkId: `launch-${launch}`,
          layoutFile: plan.layout.file,
          layoutSha256: plan.layout.sha256,
          candidate: { kind: 'output', dir, output: output.path, sha256: output.sha256 },
          snapshot: without(snapshot, name),
          ...(members[name] !== undefined && { incumbent: members[name].sha256 }),
          checks: [...role.checks],
          ...(name === plan.frozenSource && { frozenSource: frozen.identity }),
          install: true,
        }),
      );
      attempts.push({
        ...base,
        attempt,
        outcome: check.passed ? 'accepted' : 'rejected',
        findings: clipFindings(check.findings),
        findingsCount: check.findingsCount,
        sha256: check.sha256,
        model: outcome.result.model,
        durationMs: outcome.result.durationMs,
        ...(check.verdict !== undefined && { verdict: { accepted: check.verdict.accepted, refused: check.verdict.refused, blockers: check.verdict.blockers } }),
      });
      // Parallel launches share the worktree, so a stray write is reported once, by the first check that sees it.
      const strays = check.strays.filter((stray) => !reportedStrays.has(stray));
      if (strays.length > 0) {
        for (const stray of strays) reportedStrays.add(stray);
        await stopped({
          kind: 'environment-changed',
          disposition: 'inspect',
          reason: `the worktree changed outside run state during the ${stage} launches (seen after ${name} attempt ${attempt}): ${strays.slice(0, 5).join(', ')}${strays.length > 5 ? ` and ${strays.length - 5} more` : ''}; workers write only their outputs — restore the worktree and resume`,
          evidence: `${input.worktree} (git -C ${input.worktree} status)`,
        });
      }
      if (check.passed) {
        const member: MemberRecord = {
          role: name,
          path: role.path,
          sha256: check.sha256,
          size: check.size,
          check: 'passed',
          handed: Object.fromEntries(handed.map((entry) => [entry.role, entry.sha256])),
          attempt,
          launchId,
          profile: outcome.result.profile,
          model: outcome.result.model,
          modelSource: outcome.result.modelSource,
        };
        members[name] = member;
        details();
        return { member, check };
      }
      why = `its last candidate was rejected: ${check.findings[0]?.message ?? 'see the findings'}`;
      evidence = `${check.dir}/findings.md`;
      const reason = spec.kind === 'write' || spec.kind === 're-ask' ? (spec.reason ?? 'rejected by its check') : `${(spec.reason ?? spec.kind).replace(/; then rejected by its check$/, '')}; then rejected by its check`;
      spec = { ...spec, kind: spec.kind === 'write' ? 're-ask' : spec.kind, reason, ...(check.findingsSha256 !== undefined && { findingsSha256: check.findingsSha256 }) };
    }
  };

  /** Re-checks every accepted member of `group` against the others as they stand; a member that fails is re-asked with the findings, until all pass. */
  const recheck = async (kind: CheckRecord['kind'], group: readonly string[]): Promise<void> => {
    for (;;) {
      checkRounds += 1;
      const round = checkRounds;
      const snapshot = current();
      const roles = group.filter((role) => members[role] !== undefined);
      const outcomes = await Promise.all(
        roles.map(async (role) => {
          const member = members[role] as MemberRecord;
          const check = await withStops(() =>
            io(`${kind} ${role}`).checkCandidate({
              runDir: input.runDir,
              worktree: input.worktree,
              role,
              checkId: `${kind}-${round}`,
              layoutFile: plan.layout.file,
              layoutSha256: plan.layout.sha256,
              candidate: { kind: 'member', sha256: member.sha256 },
              snapshot: without(snapshot, role),
              checks: roleOf(role).checks.filter((check) => check !== 'keeps-records'),
              ...(role === plan.frozenSource && { frozenSource: frozen.identity }),
              install: false,
            }),
          );
          checks.push({ role, sha256: member.sha256, kind, round, passed: check.passed, findings: clipFindings(check.findings), findingsCount: check.findingsCount, at: now() });
          return { role, check };
        }),
      );
      const failing = outcomes.filter((outcome) => !outcome.check.passed);
      if (failing.length === 0) return;
      for (const { role } of failing) members[role] = { ...(members[role] as MemberRecord), check: 'failed' };
      await Promise.all(
        failing.map(({ role, check }) =>
          produce(role, snapshot, { kind: 're-ask', reason: `failed the ${kind} against the members as they stand`, ...(check.findingsSha256 !== undefined && { findingsSha256: check.findingsSha256 }) }),
        ),
      );
    }
  };

  /** Reconciliation again, fresh, when the members it was written from changed. */
  const reconcileIfChanged = async (): Promise<void> => {
    const reconciliation = members[RECONCILIATION];
    if (reconciliation === undefined) return;
    const changed = roleOf(RECONCILIATION).reads.filter((read) => members[read]?.sha256 !== reconciliation.handed[read]);
    if (changed.length === 0) return;
    enter('reconciliation again');
    await produce(RECONCILIATION, current(), { kind: 'fresh', reason: `its inputs changed: ${changed.join(', ')}`, changed });
  };

  /**
   * A verifier and its correction cascade: the verdict is applied to the exact versions handed; a
   * refusal asks the refused authors for corrections, re-checks every report against them,
   * reconciles again when its inputs changed, and asks the verifier again.
   */
  const verify = async (verifier: string, label: string): Promise<void> => {
    const subjects = roleOf(verifier).verifies;
    let spec: AskSpec = { kind: 'write' };
    for (;;) {
      enter(label);
      const snapshot = current();
      const { member, check } = await produce(verifier, snapshot, spec);
      const verdict = check.verdict;
      if (verdict === undefined) throw ApplicationFailure.create({ type: 'bad-run', nonRetryable: true, message: `${verifier}'s accepted document carries no verdict` });
      for (const subject of subjects) {
        const handed = snapshot[subject];
        if (handed === undefined || members[subject] === undefined) continue;
        members[subject] = { ...(members[subject] as MemberRecord), verified: { by: verifier, outcome: verdict.refused.includes(subject) ? 'refused' : 'accepted', sha256: handed } };
      }
      if (verdict.refused.length === 0) return;
      const budget = budgets[verifier] as { used: number; max: number };
      if (budget.used >= budget.max) {
        await exhausted(verifier, `it refused ${verdict.refused.join(', ')} on its last attempt, so no correction could be verified`, `${check.dir}/check.json`);
      }
      enter(`corrections for ${verifier}`);
      const corrections = current();
      await Promise.all(verdict.refused.map((subject) => produce(subject, corrections, { kind: 'correction', reason: `refused by ${verifier}`, refusal: { verifier, verdictSha256: member.sha256 } })));
      if (verifier === REPORT_VERIFICATION) {
        enter('re-check');
        await recheck('re-check', REPORT_GROUP);
        await reconcileIfChanged();
      }
      const changed = subjects.filter((subject) => members[subject]?.sha256 !== snapshot[subject]);
      spec = { kind: 'fresh', reason: `its subjects changed: ${changed.join(', ')}`, changed };
    }
  };

  /** Assembly: every required member's current bytes passed their check; then the exact manifest. */
  const assemble = async (final: Disposition): Promise<AnalysisResult> => {
    disposition = final;
    enter('assembly');
    for (const [role, member] of Object.entries(members)) {
      if (member.check !== 'passed') throw ApplicationFailure.create({ type: 'bad-run', nonRetryable: true, message: `assembly reached with ${role} failing its check` });
    }
    let assembly;
    for (;;) {
      const fixed = manifest('assembled');
      assembly = await withStops(() =>
        io('assemble the artifact').assemble({
          runDir: input.runDir,
          worktree: input.worktree,
          layoutFile: plan.layout.file,
          layoutSha256: plan.layout.sha256,
          disposition: final,
          members: Object.values(members),
          manifest: fixed,
        }),
      );
      if (assembly.ok) {
        manifestPath = assembly.manifest;
        let recorded: { state: ManifestStatus; manifest: Manifest } = { state: 'assembled', manifest: fixed };
        if (final === 'published' && patched(PUBLICATION_PATCH)) {
          const published = await publish(fixed);
          publication = published.publication;
          recorded = { state: 'published', manifest: published.manifest };
        }
        status = final === 'blocked' ? 'blocked' : 'completed';
        stage = final === 'published' ? (publication ? 'published' : 'assembled') : `ended ${final}, kept local`;
        recordStatus(status);
        details();
        await record(recorded.state, recorded.manifest);
        break;
      }
      await stopped({ kind: 'environment-changed', disposition: 'inspect', reason: `assembly refused the artifact: ${assembly.problems[0]}${assembly.problems.length > 1 ? ` (and ${assembly.problems.length - 1} more)` : ''}`, evidence: `${input.runDir}/environment.json` });
    }
    await condition(allHandlersFinished);
    return {
      runId: input.runId,
      disposition: final,
      status: status === 'blocked' ? 'blocked' : 'completed',
      manifest: assembly.manifest,
      files: assembly.files,
      ...(publication !== undefined && { publication }),
      progress: progress(),
    };
  };

  /**
   * Publication: copies the members to the layout's destination and commits them on the run
   * branch. A conflict stops the run for the operator; an outcome the journal cannot establish
   * stops it with the journal as evidence, never retried blind. A resume publishes again, and the
   * journal decides what is left to do.
   */
  const publish = async (fixed: Manifest): Promise<Extract<PublicationOutcome, { status: 'published' }>> => {
    enter('publication');
    for (;;) {
      const outcome = await withStops(() =>
        io('publish the artifact', { startToCloseTimeout: '10m', heartbeatTimeout: '30s', retry: { maximumAttempts: 5, initialInterval: '5s', nonRetryableErrorTypes: permanent } }).publishArtifact({
          runDir: input.runDir,
          worktree: input.worktree,
          layoutFile: plan.layout.file,
          layoutSha256: plan.layout.sha256,
          manifest: fixed,
        }),
      );
      if (outcome.status === 'published') return outcome;
      publishing = outcome.destination;
      if (outcome.status === 'conflict') {
        await stopped({ kind: 'conflict', disposition: 'operator', reason: `publication refused: ${outcome.reason}; nothing was written — clear the destination and resume`, evidence: outcome.evidence });
      } else {
        await stopped({ kind: 'publication-uncertain', disposition: 'inspect', reason: `publication cannot tell what an earlier try did: ${outcome.reason}; read the journal and the destination before resuming`, evidence: outcome.journal });
      }
    }
  };

  // The boundary, which may end the run.
  enter('boundary');
  const boundary = await produce(BOUNDARY, current(), { kind: 'write' });
  const boundaryDisposition = boundary.check.disposition ?? 'published';
  if (boundaryDisposition !== 'published') return assemble(boundaryDisposition);

  enter('runtime report');
  await produce(RUNTIME_REPORT, current(), { kind: 'write' });

  enter('lens reports');
  const lensRound = current();
  await Promise.all(LENSES.map((lens) => produce(lens, lensRound, { kind: 'write' })));

  enter('reconciliation');
  await produce(RECONCILIATION, current(), { kind: 'write' });

  enter('report check');
  await recheck('report-check', REPORT_GROUP);
  await verify(REPORT_VERIFICATION, 'report verification');

  enter('memory profile');
  await produce(MEMORY_PROFILE, current(), { kind: 'write' });
  await verify(PROFILE_VERIFICATION, 'profile verification');

  enter('synthesis');
  await produce(SYNTHESIS, current(), { kind: 'write' });
  await verify(SYNTHESIS_VERIFICATION, 'synthesis verification');

  return assemble('published');
}
