/** The run lifecycle every workflow shares, so none re-implements stops, resumes or closing. Which stops come back, and by what: `STOP_RULES` (src/runs/stop.ts). */
import { condition, metricMeter, setHandler, workflowInfo } from '@temporalio/workflow';
import {
  STOP_RULES,
  type ApprovalAnswer,
  type ClosedStatus,
  type LifecycleProgress,
  type Proposal,
  type ResumeRequest,
  type RunStatus,
  type Stop,
} from '../runs/stop.js';
import { recordStop } from '../observability/metrics.js';
import { autoResume, autoResumeTimer, openQuotaGates } from './auto-resume.js';
import { closeRun, RunEnded } from './lifecycle-close.js';
import { checkAcknowledge, checkApproval, checkResume, refuse, type RefusalContext } from './lifecycle-refusals.js';
import type { LifecycleSettings } from './lifecycle-settings.js';
import { RunView, type RunState } from './lifecycle-view.js';
import { Spend } from './spend-cap.js';

export type { NextCommands } from '../runs/run-commands.js';
export type { RunViewSettings } from './lifecycle-view.js';
export type { LifecycleSettings, LifecycleUpdates } from './lifecycle-settings.js';
export { RunEnded } from './lifecycle-close.js';

/** Construct it first thing in the workflow (it registers the query and the Updates) and run the main line through `close`. */
export class Lifecycle<P extends LifecycleProgress> {
  private currentStatus: RunStatus = 'running';
  private currentStage = 'starting';
  private held: Stop[] = [];
  private resumesAt: string | undefined;
  private resumes = 0;
  /** Bumped by every resume taken: a stop waits for a newer one. */
  private generation = 0;
  /** The generation the run has gone on at: the resume Update answers once it has. */
  private taken = 0;
  private resuming = false;
  private answer: ApprovalAnswer | undefined;
  private acknowledged = false;
  private readonly view: RunView;
  /** What the run's launches spent, and its cap: asked before every launch (`askWithin`), raised by a resume. */
  readonly spend: Spend;

  constructor(private readonly settings: LifecycleSettings<P>) {
    this.view = new RunView(settings.view);
    this.spend = new Spend(settings.spend?.maxCostUsd, settings.spend?.totals, settings.spend?.before);
    const { updates } = settings;
    setHandler(settings.progress.query, () => this.progress());
    setHandler(
      updates.resume,
      async (request?: ResumeRequest) => {
        if (request?.maxCostUsd !== undefined) this.spend.capUsd = request.maxCostUsd;
        await this.whileResuming(() => openQuotaGates(this.held));
        await this.take();
        // The Update answers once the run has gone on from the stop, with the progress it made.
        if (this.taken < this.generation) await condition(() => this.taken >= this.generation);
        return this.progress();
      },
      { validator: (request?: ResumeRequest) => checkResume(this.refusalContext(), request) },
    );
    if (updates.approve) {
      setHandler(updates.approve, (answer) => this.answered(() => (this.answer = answer)), {
        validator: (answer) => checkApproval(this.refusalContext(), answer, updates.checkAnswer),
      });
    }
    if (updates.acknowledge) {
      setHandler(updates.acknowledge, () => this.answered(() => (this.acknowledged = true)), {
        validator: (answer) => checkAcknowledge(this.refusalContext(), answer),
      });
    }
  }

  get status(): RunStatus {
    return this.currentStatus;
  }

  get stage(): string {
    return this.currentStage;
  }

  get stops(): readonly Stop[] {
    return this.spend.settled(this.held);
  }

  progress(): P {
    return this.settings.progress.build({
      runId: this.settings.runId,
      workflowId: workflowInfo().workflowId,
      status: this.currentStatus,
      stage: this.currentStage,
      stops: this.stops,
      ...(this.resumesAt !== undefined && { resumesAt: this.resumesAt }),
      resumes: this.resumes,
      spend: this.spend.progress(),
    });
  }

  record(): void {
    this.view.record(this.currentStatus);
  }

  at(stage: string): void {
    this.currentStage = stage;
    this.show();
  }

  show(): void {
    this.view.show(this.state());
  }

  /** Returns once a resume (the Update, or the auto-resume timer) lets the run go on; an ending stop throws `RunEnded` for `close`. */
  async halt(stop: Stop): Promise<void> {
    recordStop(metricMeter, stop);
    if (STOP_RULES[stop.kind].by === 'ends') await this.end(stop);
    if (STOP_RULES[stop.kind].by !== 'resume') throw refuse('bad-stop', `a ${stop.kind} stop is not ended by resume`);
    // Parallel branches that reach the cap together wait on one spend-limit stop (one raise resumes them all).
    if (stop.kind !== 'spend-limit' || !this.held.some((held) => held.kind === 'spend-limit')) this.held = [...this.held, stop];
    this.enter('stopped');
    const seen = this.generation;
    const timer = autoResumeTimer(this.settings.autoResume, stop);
    if (timer !== undefined) this.resumesAt = new Date(Date.now() + timer.waitMs).toISOString();
    this.show();
    await this.settings.changed?.();
    if (timer !== undefined) {
      await autoResume(stop, timer, {
        resumed: () => this.generation > seen,
        stillStopped: () => !this.resuming && this.held.includes(stop),
        take: () => this.take(),
      });
    }
    await condition(() => this.generation > seen);
    this.taken = this.generation;
  }

  /** Waits out a child batch's stop: a checkout change until acknowledged, any other until resumed (or its rule ends the run). */
  async waitOut(stop: Stop): Promise<void> {
    if (stop.kind === 'checkout-changed') await this.acknowledge(stop.paths, stop.reason);
    else await this.halt(stop);
  }

  /** The *decide* helper: proposes a file and waits for the approval Update its validator let through. */
  async decide(proposal: Proposal, reason: string): Promise<ApprovalAnswer> {
    this.held = [{ kind: 'awaiting-approval', disposition: 'operator', reason, proposal }];
    recordStop(metricMeter, { kind: 'awaiting-approval', disposition: 'operator' });
    this.enter('awaiting-approval');
    this.show();
    await condition(() => this.answer !== undefined);
    const answer = this.answer!;
    this.answer = undefined;
    this.leave();
    return answer;
  }

  /** Stops on a checkout change until the operator acknowledges exactly these paths. */
  async acknowledge(paths: string[], why?: string): Promise<void> {
    const reason =
      why ??
      `${paths.length} path${paths.length === 1 ? '' : 's'} changed in the checkout outside the run's directories while it was open; a worker may have written them`;
    this.held = [{ kind: 'checkout-changed', disposition: 'inspect', reason, paths }];
    recordStop(metricMeter, { kind: 'checkout-changed', disposition: 'inspect' });
    this.enter('stopped');
    this.show();
    await condition(() => this.acknowledged);
    this.acknowledged = false;
    this.leave();
  }

  /** The completed progress, for a summary written before `complete` records the close. */
  completing(stage: string): P {
    this.currentStatus = 'completed';
    this.at(stage);
    return this.progress();
  }

  /** Closes the run as completed (or blocked, kept local), with its last stage. */
  complete(status: 'completed' | 'blocked', stage: string): void {
    this.currentStage = stage;
    this.held = [];
    this.enter(status);
    this.show();
  }

  /** Runs the main line and makes the status true on every close (lifecycle-close.ts); an ending stop gives `ended`'s result. */
  close<T>(main: () => Promise<T>, ended: (stop: Stop) => Promise<T>): Promise<T> {
    return closeRun(main, ended, (status, stage) => this.closeAs(status, stage));
  }

  private closeAs(status: ClosedStatus, stage: string): void {
    this.currentStage = stage;
    this.resumesAt = undefined;
    this.enter(status);
    this.show();
  }

  private async end(stop: Stop): Promise<never> {
    this.held = [stop];
    this.closeAs('exhausted', `ended: ${stop.kind}`);
    await this.settings.changed?.();
    throw new RunEnded(stop);
  }

  /** `beforeResume` may name a stop to stay in instead. */
  private async take(): Promise<void> {
    await this.whileResuming(async () => {
      const blocked = await this.settings.beforeResume?.();
      this.resumesAt = undefined;
      if (blocked) {
        this.held = [blocked];
      } else {
        this.held = [];
        this.resumes += 1;
        this.enter('running');
        this.generation += 1;
      }
      this.show();
      await this.settings.changed?.();
    });
  }

  /** While `step` runs the resume validator refuses a second resume and the auto-resume timer stands down. */
  private async whileResuming(step: () => Promise<void>): Promise<void> {
    this.resuming = true;
    try {
      await step();
    } finally {
      this.resuming = false;
    }
  }

  /** An approve or acknowledge Update answers once the run left the stop it answered. */
  private async answered(give: () => void): Promise<P> {
    const waiting = this.held[0];
    give();
    await condition(() => this.held[0] !== waiting);
    return this.progress();
  }

  private enter(status: RunStatus): void {
    this.currentStatus = status;
    this.view.record(status);
  }

  private leave(): void {
    this.held = [];
    this.enter('running');
    this.show();
  }

  private state(): RunState {
    return { status: this.currentStatus, stage: this.currentStage, stops: this.stops, resumesAt: this.resumesAt, spend: this.spend };
  }

  private refusalContext(): RefusalContext {
    return {
      runId: this.settings.runId,
      status: this.currentStatus,
      stage: this.currentStage,
      stops: this.stops,
      resuming: this.resuming,
      next: this.settings.view.next,
      spent: this.spend.all(),
      ...(this.spend.capUsd !== undefined && { capUsd: this.spend.capUsd }),
    };
  }
}
