/**
 * The run lifecycle every workflow shares: its status (and the `CommonplaceStatus` search
 * attribute), the stops it is in, the common part of its `progress` query, the `resume` Update,
 * the auto-resume timer for usage limits, `approve` and `acknowledge` where a workflow takes them,
 * its current details in the Web UI, and how it closes. Workflows call it; none re-implements it.
 * Which stops come back, and by what, is the one table `STOP_RULES` in `src/runs/stop.ts`.
 */
import {
  allHandlersFinished,
  ApplicationFailure,
  CancellationScope,
  condition,
  isCancellation,
  metricMeter,
  setCurrentDetails,
  setHandler,
  TemporalFailure,
  upsertSearchAttributes,
  workflowInfo,
  type QueryDefinition,
} from '@temporalio/workflow';
import type { UpdateDefinition } from '@temporalio/common';
import { CommonplaceKind, CommonplaceStatus } from '../search-attributes.js';
import { autoResumed, autoResumeWait, openQuotaGates, quotaReopened, quotaVersion, watchQuotaGate } from './quota-gate-client.js';
import { nextCap, resumeCapProblem, spendLine, type SpendTotals } from '../runs/spend.js';
import {
  STOP_RULES,
  type AcknowledgeAnswer,
  type ApprovalAnswer,
  type ClosedStatus,
  type LifecycleProgress,
  type Proposal,
  type ResumeRequest,
  type RunStatus,
  type Stop,
} from '../runs/stop.js';
import { approvalRefusal } from '../review/edit/approval-key.js';
import { Spend } from './spend-cap.js';
import { clipAll, DETAIL_LINE, stopLines } from './current-details.js';
import { recordStop } from '../observability/metrics.js';

/** Records a status change only where the starter set the project's search attributes (the time-skipping server has none). */
function recordStatus(status: RunStatus): void {
  if (workflowInfo().typedSearchAttributes.get(CommonplaceKind) === undefined) return;
  upsertSearchAttributes([{ key: CommonplaceStatus, value: status }]);
}

/** Thrown by a stop that ends the run; `Lifecycle.close` turns it into the workflow's exhausted result. */
export class RunEnded extends Error {
  constructor(readonly stop: Stop) {
    super(`${stop.kind}: ${stop.reason}`);
    this.name = 'RunEnded';
  }
}

function refuse(type: string, message: string): ApplicationFailure {
  return ApplicationFailure.create({ type, message, nonRetryable: true });
}

/** The commands the operator types next, by how a stop ends. */
export interface NextCommands {
  /** The same command again: resumes a stop the `resume` Update ends. */
  resume: string;
  /** What to type for a proposal (edit workflows). */
  approve?: (proposal: Proposal) => string;
  acknowledge?: string;
  /** After the run ended exhausted: the one next step. */
  ended: string;
}

export interface LifecycleSettings<P extends LifecycleProgress> {
  runId: string;
  /** The first line of the current details, for a stage (`**analysis** AAS-…: boundary`). */
  headline: (stage: string) => string;
  next: NextCommands;
  /** Wait for a usage limit's reset time on a durable timer and go on. */
  autoResume: boolean;
  progress: { query: QueryDefinition<P>; build: (common: LifecycleProgress) => P };
  resume: UpdateDefinition<P, [ResumeRequest]>;
  approve?: UpdateDefinition<P, [ApprovalAnswer]>;
  acknowledge?: UpdateDefinition<P, [AcknowledgeAnswer]>;
  /** Refuses an answer's text that cannot be applied (a selection list that does not parse); a message, or undefined. */
  checkAnswer?: (answer: ApprovalAnswer, proposal: Proposal) => string | undefined;
  /** More lines of current details while the run goes. */
  details?: () => string[];
  /** The command that shows the whole run (every stop in full): current details name it where they leave something out. */
  inspect?: string;
  /** Before a resume is taken (an environment assertion): a stop to stay in instead, or undefined to go on. */
  beforeResume?: () => Promise<Stop | undefined>;
  /** After the run entered or stayed in a stop, and after a resume (records the run's state file). */
  changed?: () => Promise<void>;
  /** The run's `--max-cost` cap in US dollars (from its input, or carried across continue-as-new). */
  maxCostUsd?: number;
  /** The record this execution's launches add to (a sweep's counts), and what earlier executions spent against the same cap. */
  spent?: { totals: SpendTotals; before?: SpendTotals };
}

/**
 * One run's lifecycle. Construct it first thing in the workflow (it registers the query and the
 * Updates), run the workflow's main line through `close`, and stop through `halt`, `decide` and
 * `acknowledge`.
 */
export class Lifecycle<P extends LifecycleProgress> {
  // The state is the lifecycle's own: workflows read it through the getters and change it through the methods.
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
  /** What the run's launches spent, and its cap: asked before every launch (`askWithin`), raised by a resume. */
  readonly spend: Spend;

  constructor(private readonly settings: LifecycleSettings<P>) {
    this.spend = new Spend(settings.maxCostUsd, settings.spent?.totals, settings.spent?.before);
    setHandler(settings.progress.query, () => this.progress());
    setHandler(
      settings.resume,
      async (request?: ResumeRequest) => {
        if (request?.maxCostUsd !== undefined) this.spend.capUsd = request.maxCostUsd;
        await this.openQuotaGates();
        await this.take();
        // The Update answers once the run has gone on from the stop, with the progress it made.
        if (this.taken < this.generation) await condition(() => this.taken >= this.generation);
        return this.progress();
      },
      { validator: (request?: ResumeRequest) => this.validateResume(request) },
    );
    if (settings.approve) {
      setHandler(
        settings.approve,
        async (answer) => {
          const waiting = this.held[0];
          this.answer = answer;
          await condition(() => this.held[0] !== waiting);
          return this.progress();
        },
        { validator: (answer) => this.validateApproval(answer) },
      );
    }
    if (settings.acknowledge) {
      setHandler(
        settings.acknowledge,
        async () => {
          const waiting = this.held[0];
          this.acknowledged = true;
          await condition(() => this.held[0] !== waiting);
          return this.progress();
        },
        { validator: (answer) => this.validateAcknowledge(answer) },
      );
    }
  }

  /** The run's status as it stands (also the `CommonplaceStatus` search attribute, once recorded). */
  get status(): RunStatus {
    return this.currentStatus;
  }

  /** The stage the run is in. */
  get stage(): string {
    return this.currentStage;
  }

  /** The stops the run is in (none while it runs). */
  get stops(): readonly Stop[] {
    return this.held;
  }

  /** The workflow's progress: the lifecycle's common part under the workflow's own fields. */
  progress(): P {
    return this.settings.progress.build({
      runId: this.settings.runId,
      workflowId: workflowInfo().workflowId,
      status: this.currentStatus,
      stage: this.currentStage,
      stops: this.held,
      ...(this.resumesAt !== undefined && { resumesAt: this.resumesAt }),
      resumes: this.resumes,
      spend: this.spend.progress(),
    });
  }

  /** Records the status in the search attribute as it stands. */
  record(): void {
    recordStatus(this.currentStatus);
  }

  /** Names the stage the run is in, in its progress and the Web UI's current details. */
  at(stage: string): void {
    this.currentStage = stage;
    this.show();
  }

  /**
   * Writes the current details, bounded to fit a screen: the stage and the workflow's lines (each
   * clipped at a word), the first stop (the others counted), and the one command to type next (the
   * only one in backticks); where something was left out, the inspect command that shows it.
   */
  show(): void {
    const stage = clipAll([this.settings.headline(this.currentStage), ...(this.settings.details?.() ?? [])], DETAIL_LINE);
    const stops = stopLines(this.held, this.currentStatus, this.settings.inspect);
    const lines = [...stage.lines, ...stops.lines];
    if ((stage.clipped || stops.clipped) && this.held.length <= 1 && this.settings.inspect) lines.push(`in full: ${this.settings.inspect}`);
    if (this.resumesAt) lines.push(`goes on by itself at ${this.resumesAt}`);
    const spend = this.spend.progress();
    if (spend.launches > 0 || spend.capUsd !== undefined) lines.push(`spent: ${spendLine(spend)}`);
    const next = this.nextCommand();
    if (next) lines.push(`next: \`${next}\``);
    setCurrentDetails(lines.join('\n\n'));
  }

  /** The one command the operator types next, when the run waits on one. */
  nextCommand(): string | undefined {
    const stop = this.held[0];
    if (stop === undefined) return undefined;
    if (this.currentStatus === 'exhausted') return this.settings.next.ended;
    const by = STOP_RULES[stop.kind].by;
    if (by === 'approve' && stop.kind === 'awaiting-approval') return this.settings.next.approve?.(stop.proposal);
    if (by === 'acknowledge') return this.settings.next.acknowledge;
    if (stop.kind === 'spend-limit') return `${this.settings.next.resume} --max-cost ${nextCap(this.spend.all())}`;
    return this.settings.next.resume;
  }

  /**
   * Stops the run and returns once it may go on: a resume (the Update, or the auto-resume timer
   * after a usage limit with a known reset), by the stop's rule. A stop that ends the run throws
   * `RunEnded`, which `close` turns into the exhausted result.
   */
  async halt(stop: Stop): Promise<void> {
    recordStop(metricMeter, stop);
    if (STOP_RULES[stop.kind].by === 'ends') await this.end(stop);
    if (STOP_RULES[stop.kind].by !== 'resume') throw refuse('bad-stop', `a ${stop.kind} stop is not ended by resume`);
    // Parallel branches that reach the cap together wait on one spend-limit stop (one raise resumes them all).
    if (stop.kind !== 'spend-limit' || !this.held.some((held) => held.kind === 'spend-limit')) this.held = [...this.held, stop];
    this.currentStatus = 'stopped';
    recordStatus('stopped');
    const seen = this.generation;
    const timer = this.settings.autoResume && STOP_RULES[stop.kind].timer && stop.kind === 'usage-limit' ? autoResumeWait(stop) : undefined;
    if (timer !== undefined) this.resumesAt = new Date(Date.now() + timer.waitMs).toISOString();
    this.show();
    await this.settings.changed?.();
    if (timer !== undefined) await this.autoResume(stop, seen, timer);
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
    this.currentStatus = 'awaiting-approval';
    recordStatus('awaiting-approval');
    this.show();
    await condition(() => this.answer !== undefined);
    const answer = this.answer!;
    this.answer = undefined;
    this.leave();
    return answer;
  }

  /** Stops on a checkout change until the operator acknowledges exactly these paths. */
  async acknowledge(paths: string[], why?: string): Promise<void> {
    const reason = why ?? `${paths.length} path${paths.length === 1 ? '' : 's'} changed in the checkout outside the run's directories while it was open; a worker may have written them`;
    this.held = [{ kind: 'checkout-changed', disposition: 'inspect', reason, paths }];
    recordStop(metricMeter, { kind: 'checkout-changed', disposition: 'inspect' });
    this.currentStatus = 'stopped';
    recordStatus('stopped');
    this.show();
    await condition(() => this.acknowledged);
    this.acknowledged = false;
    this.leave();
  }

  /**
   * The run's progress as it closes completed, for a summary written before the close is recorded:
   * the status and the stage change here, the search attribute in `complete`.
   */
  completing(stage: string): P {
    this.currentStatus = 'completed';
    this.at(stage);
    return this.progress();
  }

  /** Closes the run as completed (or blocked, kept local), with its last stage. */
  complete(status: 'completed' | 'blocked', stage: string): void {
    this.currentStatus = status;
    this.currentStage = stage;
    this.held = [];
    recordStatus(status);
    this.show();
  }

  /**
   * Runs the workflow's main line and makes the status true on every close: a stop that ends the
   * run gives `ended`'s result (status `exhausted`, work in flight cancelled), a cancellation is
   * recorded `cancelled` and propagates, a failure is recorded `failed` and then fails the workflow.
   * A run that returns first lets its Update handlers in flight finish (their callers get an answer).
   */
  async close<T>(main: () => Promise<T>, ended: (stop: Stop) => Promise<T>): Promise<T> {
    const scope = new CancellationScope();
    try {
      const result = await scope.run(main);
      await condition(allHandlersFinished);
      return result;
    } catch (error) {
      if (error instanceof RunEnded) {
        scope.cancel();
        const result = await ended(error.stop);
        await condition(allHandlersFinished);
        return result;
      }
      if (isCancellation(error)) {
        this.closeAs('cancelled', 'cancelled by the operator');
      } else if (error instanceof TemporalFailure) {
        this.closeAs('failed', `failed: ${error.message}`);
      }
      throw error;
    }
  }

  private closeAs(status: ClosedStatus, stage: string): void {
    this.currentStatus = status;
    this.currentStage = stage;
    this.resumesAt = undefined;
    recordStatus(status);
    this.show();
  }

  /** An ending stop: the run closes exhausted, and `close` gives the workflow's ended result. */
  private async end(stop: Stop): Promise<never> {
    this.held = [stop];
    this.closeAs('exhausted', `ended: ${stop.kind}`);
    await this.settings.changed?.();
    throw new RunEnded(stop);
  }

  /**
   * The auto-resume timer of a usage-limit stop: at the reset (or the probe), or as soon as the
   * account's quota gate opens, the run resumes by itself — unless a resume got there first.
   */
  private async autoResume(stop: Stop, seen: number, timer: { waitMs: number; summary: string }): Promise<void> {
    await watchQuotaGate(stop);
    const gate = quotaVersion(stop);
    await condition(() => this.generation > seen || quotaReopened(stop, gate), timer.waitMs, { summary: timer.summary });
    if (this.generation === seen && !this.resuming && this.held.includes(stop)) {
      autoResumed();
      await this.take();
    }
  }

  /** An operator's resume of a run stopped on a quota gate opens the gate (the account may be tried now). */
  private async openQuotaGates(): Promise<void> {
    this.resuming = true;
    try {
      await openQuotaGates(this.held);
    } finally {
      this.resuming = false;
    }
  }

  /** Takes a resume: asks `beforeResume`, then goes on (or stays in the stop it names). */
  private async take(): Promise<void> {
    this.resuming = true;
    try {
      const blocked = await this.settings.beforeResume?.();
      if (blocked) {
        this.held = [blocked];
        this.resumesAt = undefined;
        this.show();
        await this.settings.changed?.();
        return;
      }
      this.held = [];
      this.resumesAt = undefined;
      this.resumes += 1;
      this.currentStatus = 'running';
      recordStatus('running');
      this.generation += 1;
      this.show();
      await this.settings.changed?.();
    } finally {
      this.resuming = false;
    }
  }

  private leave(): void {
    this.currentStatus = 'running';
    this.held = [];
    recordStatus('running');
    this.show();
  }

  private describeState(): string {
    return this.held.length > 0 ? `${this.currentStatus} (${this.held.map((stop) => stop.kind).join(', ')})` : `${this.currentStatus} at ${this.currentStage}`;
  }

  private validateResume(request?: ResumeRequest): void {
    if (this.resuming) throw refuse('nothing-to-resume', `run ${this.settings.runId} is already resuming`);
    const resumable = this.held.some((stop) => STOP_RULES[stop.kind].by === 'resume');
    if (this.currentStatus !== 'stopped' || !resumable) {
      const ended = this.currentStatus === 'exhausted' ? `; it ended (next: \`${this.settings.next.ended}\`)` : '';
      throw refuse('nothing-to-resume', `run ${this.settings.runId} is ${this.describeState()}: there is nothing to resume${ended}`);
    }
    const problem = resumeCapProblem({ stoppedAtCap: this.held.some((stop) => stop.kind === 'spend-limit'), newCapUsd: request?.maxCostUsd, totals: this.spend.all() });
    if (problem !== undefined) throw refuse('spend-cap', `run ${this.settings.runId} was not resumed: ${problem}`);
  }

  private validateApproval(answer: ApprovalAnswer): void {
    const stop = this.held[0];
    if (this.currentStatus !== 'awaiting-approval' || stop?.kind !== 'awaiting-approval') {
      throw refuse('not-awaiting-approval', `run ${this.settings.runId} is not waiting for an approval (it is ${this.describeState()}); nothing was approved`);
    }
    const proposal = stop.proposal;
    const refusal = approvalRefusal(proposal, answer, { runId: this.settings.runId, resume: this.settings.next.resume });
    if (refusal !== undefined) throw refuse(refusal.type, refusal.message);
    if (proposal.exact) return;
    const problem = this.settings.checkAnswer?.(answer, proposal);
    if (problem !== undefined) throw refuse('bad-answer', `${answer.file} ${problem}; nothing was approved`);
  }

  private validateAcknowledge(answer: AcknowledgeAnswer): void {
    const stop = this.held[0];
    if (this.currentStatus !== 'stopped' || stop?.kind !== 'checkout-changed') {
      throw refuse('nothing-to-acknowledge', `run ${this.settings.runId} is ${this.describeState()}: there are no changed paths to acknowledge`);
    }
    const shown = [...stop.paths].sort();
    const sent = [...answer.paths].sort();
    if (JSON.stringify(shown) !== JSON.stringify(sent)) {
      throw refuse('stale-paths', `the paths acknowledged are not the ones run ${this.settings.runId} stopped on (${shown.join(', ')}); nothing was acknowledged`);
    }
  }
}
