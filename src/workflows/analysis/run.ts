/** An analysis run's state inside its workflow, which the steps (`produce`, the cascade, assembly) read and change. */
import { ActivityFailure, ApplicationFailure, proxyActivities, workflowInfo, type ActivityOptions } from '@temporalio/workflow';
import type { Activities } from '../../activities/index.js';
import type { EnvironmentChangedDetails, OpenedRun } from '../../activities/analysis/types.js';
import { buildManifest, environmentStop, snapshotOf, sourceUnavailableStop, type Snapshot } from '../../analysis/decisions.js';
import type { Manifest, ManifestStatus, PublicationRecord } from '../../analysis/manifest.js';
import type { Plan, PlanRole } from '../../analysis/plan.js';
import type { AnalysisInput, AnalysisProgress, AttemptRecord, CheckRecord, FrozenSource, InFlightLaunch, MemberRecord } from '../../analysis/progress.js';
import type { Disposition } from '../../kb/layouts.js';
import type { LaunchResult } from '../../harness/launch-contract.js';
import { runCommand } from '../../runs/run-commands.js';
import type { LifecycleProgress } from '../../runs/stop.js';
import { analysisProgressQuery, analysisResumeUpdate } from '../messages.js';
import { Lifecycle } from '../lifecycle.js';
import { Answers } from '../asking/answers.js';

export { analysisProgressQuery as progressQuery, analysisResumeUpdate as resumeUpdate } from '../messages.js';

export const permanent = ['bad-plan', 'bad-profile', 'bad-run', 'environment-changed', 'source-unavailable'];

export function io(summary: string, options: Partial<ActivityOptions> = {}) {
  return proxyActivities<Activities>({
    startToCloseTimeout: '5m',
    heartbeatTimeout: '30s',
    retry: { maximumAttempts: 3, nonRetryableErrorTypes: permanent },
    summary,
    ...options,
  });
}

export function badRun(type: 'bad-plan' | 'bad-run', message: string): ApplicationFailure {
  return ApplicationFailure.create({ type, nonRetryable: true, message });
}

/** A launch whose answer was accepted or checked: a later ask with its key is answered by it, not launched. */
export interface Answer {
  launch: number;
  launchId: string;
  result: LaunchResult;
  /** The stored digest of the output that was checked. */
  sha256: string;
}

export class AnalysisRun {
  readonly lifecycle: Lifecycle<AnalysisProgress>;
  readonly startedAt: string;
  opened: OpenedRun | undefined;
  source: FrozenSource | undefined;
  disposition: Disposition | undefined;
  manifestPath: string | undefined;
  /** The destination while the run publishes: the environment assertion leaves publication's own writes alone. */
  publishing: string | undefined;
  publication: PublicationRecord | undefined;
  readonly budgets: Record<string, { used: number; max: number }> = {};
  readonly launches: Record<string, number> = {};
  readonly members: Record<string, MemberRecord> = {};
  readonly attempts: AttemptRecord[] = [];
  readonly checks: CheckRecord[] = [];
  readonly inFlight: InFlightLaunch[] = [];
  /** Role → the versions a verifier refused: a candidate with those bytes corrects nothing. */
  readonly refused: Record<string, string[]> = {};
  checkRounds = 0;
  /** Stray paths already reported by an environment stop; forgotten once a resume finds the worktree clean. */
  readonly reportedStrays = new Set<string>();
  readonly answers = new Answers<Answer>();
  private recording: Promise<void> = Promise.resolve();

  constructor(readonly input: AnalysisInput) {
    this.startedAt = this.now();
    this.lifecycle = new Lifecycle<AnalysisProgress>({
      runId: input.runId,
      view: {
        headline: (stage) => `**${stage}** — run ${input.runId}${this.opened ? ` of ${this.opened.parameters.system}` : ''}`,
        details: () => this.detailLines(),
        next: { resume: runCommand.analysisRun(input.runId), ended: runCommand.analysisReset(input.runId) },
        inspect: runCommand.analysisInspect(input.runId),
      },
      autoResume: input.autoResume,
      progress: { query: analysisProgressQuery, build: (common) => this.progress(common) },
      updates: { resume: analysisResumeUpdate },
      beforeResume: async () => {
        const environment = await io('assert the environment on resume').assertEnvironment({
          runDir: input.runDir,
          worktree: input.worktree,
          ...(this.publishing !== undefined && { publishing: this.publishing }),
        });
        if (!environment.ok) return environmentStop(environment);
        this.reportedStrays.clear();
        return undefined;
      },
      changed: () => this.record(),
      ...(input.maxCostUsd !== undefined && { spend: { maxCostUsd: input.maxCostUsd } }),
    });
  }

  now(): string {
    return new Date(Date.now()).toISOString();
  }

  get run(): OpenedRun {
    if (this.opened === undefined) throw badRun('bad-run', 'the run is not open yet');
    return this.opened;
  }

  get plan(): Plan {
    return this.run.plan;
  }

  get frozen(): FrozenSource {
    if (this.source === undefined) throw badRun('bad-run', 'the source is not frozen yet');
    return this.source;
  }

  roleOf(name: string): PlanRole {
    const role = this.plan.roles[name];
    if (role === undefined) throw badRun('bad-plan', `plan ${this.plan.file} has no role ${name}`);
    return role;
  }

  current(): Snapshot {
    return snapshotOf(this.members);
  }

  enter(stage: string): void {
    this.lifecycle.at(stage);
  }

  progress(common: LifecycleProgress): AnalysisProgress {
    return {
      ...common,
      system: this.opened?.parameters.system ?? '',
      profile: this.opened?.profile.name ?? '',
      ...(this.disposition !== undefined && { disposition: this.disposition }),
      autoResume: this.input.autoResume,
      ...(this.source !== undefined && { source: this.source }),
      budgets: this.budgets,
      members: this.members,
      attempts: this.attempts,
      checks: this.checks,
      inFlight: this.inFlight,
      ...(this.manifestPath !== undefined && { manifest: this.manifestPath }),
      ...(this.publication !== undefined && { publication: this.publication }),
      runDir: this.input.runDir,
      startedAt: this.startedAt,
      updatedAt: this.now(),
    };
  }

  private detailLines(): string[] {
    const lines: string[] = [];
    const used = Object.entries(this.budgets)
      .filter(([, budget]) => budget.used > 0)
      .map(([role, budget]) => `${role} ${budget.used}/${budget.max}`)
      .join(', ');
    if (this.inFlight.length > 0) lines.push(`asking: ${this.inFlight.map((launch) => launch.launchId.split('/').slice(-2).join(' #')).join(', ')}`);
    if (used) lines.push(`attempts used: ${used}`);
    return lines;
  }

  manifest(state: ManifestStatus): Manifest {
    return buildManifest(
      {
        runId: this.input.runId,
        order: this.opened?.plan.layout.roles.map((role) => role.name) ?? [],
        ...(this.opened !== undefined && { parameters: this.opened.parameters }),
        ...(this.source !== undefined && { source: this.source }),
        ...(this.disposition !== undefined && { disposition: this.disposition }),
      },
      this.members,
      state,
      this.now(),
    );
  }

  /** Writes run.json and the working manifest; records are written one after another, so run.json always ends as the newest state. */
  record(state?: ManifestStatus, fixed?: Manifest): Promise<void> {
    const status = this.lifecycle.status;
    const manifestState = state ?? (status === 'stopped' ? 'stopped' : status === 'exhausted' ? 'exhausted' : 'running');
    const snapshot = { runDir: this.input.runDir, progress: this.lifecycle.progress(), manifest: fixed ?? this.manifest(manifestState) };
    this.recording = this.recording.catch(() => undefined).then(() => io('record the run').recordRun(snapshot));
    return this.recording;
  }

  /** Runs activity work; an environment change or an unavailable source it reports stops the run, and the work is retried once resumed. */
  async withStops<T>(work: () => Promise<T>): Promise<T> {
    for (;;) {
      try {
        return await work();
      } catch (error) {
        const cause = error instanceof ActivityFailure ? error.cause : undefined;
        if (!(cause instanceof ApplicationFailure) || (cause.type !== 'environment-changed' && cause.type !== 'source-unavailable')) throw error;
        const detail = (cause.details?.[0] as EnvironmentChangedDetails | undefined) ?? { problems: [cause.message], evidence: this.input.runDir };
        await this.lifecycle.halt(
          cause.type === 'source-unavailable' ? sourceUnavailableStop(detail) : environmentStop(detail, detail.what ?? 'run state changed'),
        );
      }
    }
  }

  /** Asserts the environment (HEAD, a clean tree, the method commit, the startup files); a change stops the run. */
  async ensureEnvironment(when: string): Promise<void> {
    const environment = await io(`assert the environment ${when}`).assertEnvironment({ runDir: this.input.runDir, worktree: this.input.worktree });
    if (!environment.ok) await this.lifecycle.halt(environmentStop(environment));
  }

  get workflowId(): string {
    return workflowInfo().workflowId;
  }
}
