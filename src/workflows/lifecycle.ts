/**
 * The run lifecycle every workflow shares: its status (and the `CommonplaceStatus` search
 * attribute), the stops it is in, the common part of its `progress` query, the `resume` Update,
 * the auto-resume timer for usage limits, `approve` and `acknowledge` where a workflow takes them,
 * its current details in the Web UI, and how it closes. Workflows call it; none re-implements it.
 * Which stops come back, and by what, is the one table `STOP_RULES` in `src/runs/stop.ts`.
 */
import {
  ApplicationFailure,
  CancellationScope,
  condition,
  isCancellation,
  patched,
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
import { Spend } from './spend-cap.js';
import { clipAll, DETAIL_LINE, stopLines } from './current-details.js';

/** Runs begun before an exhausted budget ended a run waited on such a stop (analysis) or resumed it (edits); this patch marks runs that end. */
export const EXHAUSTED_PATCH = 'lifecycle-exhausted-ends';

/** Records a status change only where the starter set the project's search attributes (the time-skipping server has none). */
export function recordStatus(status: RunStatus): void {
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
  /** How a run recorded before the exhausted close treated an ending stop: it waited forever, the resume Update went on, or it went on at once. */
  legacyEnd: 'wait' | 'resume' | 'continue';
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
  status: RunStatus = 'running';
  stage = 'starting';
  stops: Stop[] = [];
  resumesAt: string | undefined;
  resumes = 0;
  /** Bumped by every resume taken: a stop waits for a newer one. */
  private generation = 0;
  /** The generation the run has gone on at: the resume Update answers once it has. */
  private taken = 0;
  private resuming = false;
  /** A legacy ending stop (recorded before EXHAUSTED_PATCH) that the resume Update may end. */
  private legacyResumable = false;
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
          const waiting = this.stops[0];
          this.answer = answer;
          await condition(() => this.stops[0] !== waiting);
          return this.progress();
        },
        { validator: (answer) => this.validateApproval(answer) },
      );
    }
    if (settings.acknowledge) {
      setHandler(
        settings.acknowledge,
        async () => {
          const waiting = this.stops[0];
          this.acknowledged = true;
          await condition(() => this.stops[0] !== waiting);
          return this.progress();
        },
        { validator: (answer) => this.validateAcknowledge(answer) },
      );
    }
  }

  /** The workflow's progress: the lifecycle's common part under the workflow's own fields. */
  progress(): P {
    return this.settings.progress.build({
      runId: this.settings.runId,
      workflowId: workflowInfo().workflowId,
      status: this.status,
      stage: this.stage,
      stops: this.stops,
      ...(this.resumesAt !== undefined && { resumesAt: this.resumesAt }),
      resumes: this.resumes,
      spend: this.spend.progress(),
    });
  }

  /** Records the status in the search attribute as it stands. */
  record(): void {
    recordStatus(this.status);
  }

  /** Names the stage the run is in, in its progress and the Web UI's current details. */
  at(stage: string): void {
    this.stage = stage;
    this.show();
  }

  /**
   * Writes the current details, bounded to fit a screen: the stage and the workflow's lines (each
   * clipped at a word), the first stop (the others counted), and the one command to type next (the
   * only one in backticks); where something was left out, the inspect command that shows it.
   */
  show(): void {
    const stage = clipAll([this.settings.headline(this.stage), ...(this.settings.details?.() ?? [])], DETAIL_LINE);
    const stops = stopLines(this.stops, this.status, this.settings.inspect);
    const lines = [...stage.lines, ...stops.lines];
    if ((stage.clipped || stops.clipped) && this.stops.length <= 1 && this.settings.inspect) lines.push(`in full: ${this.settings.inspect}`);
    if (this.resumesAt) lines.push(`goes on by itself at ${this.resumesAt}`);
    const spend = this.spend.progress();
    if (spend.launches > 0 || spend.capUsd !== undefined) lines.push(`spent: ${spendLine(spend)}`);
    const next = this.nextCommand();
    if (next) lines.push(`next: \`${next}\``);
    setCurrentDetails(lines.join('\n\n'));
  }

  /** The one command the operator types next, when the run waits on one. */
  nextCommand(): string | undefined {
    const stop = this.stops[0];
    if (stop === undefined) return undefined;
    if (this.status === 'exhausted') return this.settings.next.ended;
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
    if (STOP_RULES[stop.kind].by === 'ends') {
      if ((await this.endOrLegacy(stop)) === 'continue') return;
    } else if (STOP_RULES[stop.kind].by !== 'resume') throw refuse('bad-stop', `a ${stop.kind} stop is not ended by resume`);
    // Parallel branches that reach the cap together wait on one spend-limit stop (one raise resumes them all).
    if (stop.kind !== 'spend-limit' || !this.stops.some((held) => held.kind === 'spend-limit')) this.stops = [...this.stops, stop];
    this.status = 'stopped';
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

  /** The *decide* helper: proposes a file and waits for the approval Update its validator let through. */
  async decide(proposal: Proposal, reason: string): Promise<ApprovalAnswer> {
    this.stops = [{ kind: 'awaiting-approval', disposition: 'operator', reason, proposal }];
    this.status = 'awaiting-approval';
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
    this.stops = [{ kind: 'checkout-changed', disposition: 'inspect', reason, paths }];
    this.status = 'stopped';
    recordStatus('stopped');
    this.show();
    await condition(() => this.acknowledged);
    this.acknowledged = false;
    this.leave();
  }

  /** Closes the run as completed (or blocked, kept local), with its last stage. */
  complete(status: 'completed' | 'blocked', stage: string): void {
    this.status = status;
    this.stage = stage;
    this.stops = [];
    recordStatus(status);
    this.show();
  }

  /**
   * Runs the workflow's main line and makes the status true on every close: a stop that ends the
   * run gives `ended`'s result (status `exhausted`, work in flight cancelled), a cancellation is
   * recorded `cancelled` and propagates, a failure is recorded `failed` and then fails the workflow.
   */
  async close<T>(main: () => Promise<T>, ended: (stop: Stop) => Promise<T>): Promise<T> {
    const scope = new CancellationScope();
    try {
      return await scope.run(main);
    } catch (error) {
      if (error instanceof RunEnded) {
        scope.cancel();
        return ended(error.stop);
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
    this.status = status;
    this.stage = stage;
    this.resumesAt = undefined;
    recordStatus(status);
    this.show();
  }

  /** An ending stop: the run closes exhausted; a run recorded before that behaviour replays as it ran. */
  private async endOrLegacy(stop: Stop): Promise<'continue' | 'stop'> {
    if (patched(EXHAUSTED_PATCH)) {
      this.stops = [stop];
      this.closeAs('exhausted', `ended: ${stop.kind}`);
      await this.settings.changed?.();
      throw new RunEnded(stop);
    }
    if (this.settings.legacyEnd === 'wait') {
      this.stops = [...this.stops, stop];
      this.status = 'stopped';
      recordStatus('stopped');
      this.show();
      await this.settings.changed?.();
      await condition(() => false);
    }
    if (this.settings.legacyEnd === 'continue') return 'continue';
    this.legacyResumable = true;
    return 'stop';
  }

  /**
   * The auto-resume timer of a usage-limit stop: at the reset (or the probe), or as soon as the
   * account's quota gate opens, the run resumes by itself — unless a resume got there first.
   */
  private async autoResume(stop: Stop, seen: number, timer: { waitMs: number; summary: string }): Promise<void> {
    await watchQuotaGate(stop);
    const gate = quotaVersion(stop);
    await condition(() => this.generation > seen || quotaReopened(stop, gate), timer.waitMs, { summary: timer.summary });
    if (this.generation === seen && !this.resuming && this.stops.includes(stop)) {
      autoResumed();
      await this.take();
    }
  }

  /** An operator's resume of a run stopped on a quota gate opens the gate (the account may be tried now). */
  private async openQuotaGates(): Promise<void> {
    this.resuming = true;
    try {
      await openQuotaGates(this.stops);
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
        this.stops = [blocked];
        this.resumesAt = undefined;
        this.show();
        await this.settings.changed?.();
        return;
      }
      this.stops = [];
      this.resumesAt = undefined;
      this.legacyResumable = false;
      this.resumes += 1;
      this.status = 'running';
      recordStatus('running');
      this.generation += 1;
      this.show();
      await this.settings.changed?.();
    } finally {
      this.resuming = false;
    }
  }

  private leave(): void {
    this.status = 'running';
    this.stops = [];
    recordStatus('running');
    this.show();
  }

  private describeState(): string {
    return this.stops.length > 0 ? `${this.status} (${this.stops.map((stop) => stop.kind).join(', ')})` : `${this.status} at ${this.stage}`;
  }

  private validateResume(request?: ResumeRequest): void {
    if (this.resuming) throw refuse('nothing-to-resume', `run ${this.settings.runId} is already resuming`);
    const resumable = this.legacyResumable || this.stops.some((stop) => STOP_RULES[stop.kind].by === 'resume');
    if (this.status !== 'stopped' || !resumable) {
      const ended = this.status === 'exhausted' ? `; it ended (next: \`${this.settings.next.ended}\`)` : '';
      throw refuse('nothing-to-resume', `run ${this.settings.runId} is ${this.describeState()}: there is nothing to resume${ended}`);
    }
    const problem = resumeCapProblem({ stoppedAtCap: this.stops.some((stop) => stop.kind === 'spend-limit'), newCapUsd: request?.maxCostUsd, totals: this.spend.all() });
    if (problem !== undefined) throw refuse('spend-cap', `run ${this.settings.runId} was not resumed: ${problem}`);
  }

  private validateApproval(answer: ApprovalAnswer): void {
    const stop = this.stops[0];
    if (this.status !== 'awaiting-approval' || stop?.kind !== 'awaiting-approval') {
      throw refuse('not-awaiting-approval', `run ${this.settings.runId} is not waiting for an approval (it is ${this.describeState()}); nothing was approved`);
    }
    const proposal = stop.proposal;
    if (answer.file !== proposal.path) {
      throw refuse('not-the-proposal', `${answer.file} is not the proposal run ${this.settings.runId} waits on (it waits on ${proposal.path}); nothing was approved`);
    }
    if (answer.key !== proposal.key) {
      throw refuse('stale-key', `key ${answer.key} is not the key of the stop run ${this.settings.runId} is in: it is stale or mistyped (run \`${this.settings.next.resume}\` to see the current one); nothing was approved`);
    }
    const changed = proposal.inputs.filter((input) => answer.inputs.find((sent) => sent.path === input.path)?.sha256 !== input.sha256).map((input) => input.path);
    if (changed.length > 0) {
      throw refuse('inputs-changed', `the proposal's inputs changed since it was proposed (${changed.join(', ')}): they cannot be edited to change what is approved; nothing was approved`);
    }
    if (proposal.exact) {
      if (answer.text !== proposal.text) {
        throw refuse(
          'edited-manifest',
          `${proposal.path} is not the generated manifest: final publication is approved only with the exact generated file (restore it; to change the candidate, change the run's inputs); nothing was approved`,
        );
      }
      return;
    }
    const problem = this.settings.checkAnswer?.(answer, proposal);
    if (problem !== undefined) throw refuse('bad-answer', `${answer.file} ${problem}; nothing was approved`);
  }

  private validateAcknowledge(answer: AcknowledgeAnswer): void {
    const stop = this.stops[0];
    if (this.status !== 'stopped' || stop?.kind !== 'checkout-changed') {
      throw refuse('nothing-to-acknowledge', `run ${this.settings.runId} is ${this.describeState()}: there are no changed paths to acknowledge`);
    }
    const shown = [...stop.paths].sort();
    const sent = [...answer.paths].sort();
    if (JSON.stringify(shown) !== JSON.stringify(sent)) {
      throw refuse('stale-paths', `the paths acknowledged are not the ones run ${this.settings.runId} stopped on (${shown.join(', ')}); nothing was acknowledged`);
    }
  }
}
