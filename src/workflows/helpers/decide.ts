import { ApplicationFailure, condition, defineQuery, defineUpdate, proxyActivities, setCurrentDetails, setHandler } from '@temporalio/workflow';
import type { Activities } from '../../activities/index.js';
import { parseSelectionList } from '../../review/edit/selection.js';
import type { AcknowledgeAnswer, ApprovalAnswer, EditKind, EditProgress, EditStatus, EditStop, EditSummary, PreparedEdit, Proposal } from '../../review/edit/types.js';
import type { AskOutcome } from './ask.js';
import { checked, type CheckedTry, type TryOutcome } from './checked.js';
import { recordStatus } from './status.js';
import type { StopKind } from './stops.js';

export const progressQuery = defineQuery<EditProgress>('progress');
/** The operator's answer to a proposal; the validator refuses a stale key, another proposal, changed inputs or an edited manifest. */
export const approveUpdate = defineUpdate<EditProgress, [ApprovalAnswer]>('approve');
/** The operator owns the paths a checkout-changed stop reported; the run goes on. */
export const acknowledgeUpdate = defineUpdate<EditProgress, [AcknowledgeAnswer]>('acknowledge');
/** Run the stopped step again (after a usage limit, failed launches, a spent budget or a conflict). */
export const resumeUpdate = defineUpdate<EditProgress, []>('resume');

const { guardCheck, checkConflict, publishEdit, finishEdit } = proxyActivities<Activities>({ startToCloseTimeout: '5m', retry: { maximumAttempts: 5 } });

/** Stops the `resume` Update continues; the others wait for an approval or an acknowledgement. */
const RESUMABLE: readonly StopKind[] = ['usage-limit', 'launch-failed', 'budget-exhausted', 'conflict'];

function refuse(type: string, message: string): ApplicationFailure {
  return ApplicationFailure.create({ type, message, nonRetryable: true });
}

/**
 * The run's side of the conversation with the operator: its progress (query), the stop it is in,
 * and the Updates that end a stop. One stop at a time; each ends only by its own Update.
 */
export class Operator {
  status: EditStatus = 'running';
  stage = 'starting';
  stop: EditStop | undefined;
  launches = 0;
  /** Decisions proposed so far: each proposal's stop number (bound into its key). */
  decisions = 0;
  runDir: string | null = null;
  private answer: ApprovalAnswer | undefined;
  private acknowledged = false;
  private resumed = false;

  constructor(
    private readonly identity: { kind: EditKind; runId: string; workflowId: string; note: string },
    /** The command that continues the run (the same command again). */
    private readonly rerun: string,
  ) {
    setHandler(progressQuery, () => this.progress());
    setHandler(
      approveUpdate,
      async (answer) => {
        const waiting = this.stop;
        this.answer = answer;
        await condition(() => this.stop !== waiting);
        return this.progress();
      },
      { validator: (answer) => this.validateApproval(answer) },
    );
    setHandler(
      acknowledgeUpdate,
      async () => {
        const waiting = this.stop;
        this.acknowledged = true;
        await condition(() => this.stop !== waiting);
        return this.progress();
      },
      { validator: (answer) => this.validateAcknowledge(answer) },
    );
    setHandler(
      resumeUpdate,
      async () => {
        const waiting = this.stop;
        this.resumed = true;
        await condition(() => this.stop !== waiting);
        return this.progress();
      },
      {
        validator: () => {
          if (this.status !== 'stopped' || !this.stop || !RESUMABLE.includes(this.stop.kind)) {
            throw refuse('nothing-to-resume', `run ${this.identity.runId} is ${this.describeState()}: there is nothing to resume`);
          }
        },
      },
    );
  }

  progress(): EditProgress {
    return { ...this.identity, runDir: this.runDir, status: this.status, stage: this.stage, ...(this.stop && { stop: this.stop }), launches: this.launches };
  }

  /** Names the stage the run is in, in its progress and the Web UI's current details. */
  at(stage: string): void {
    this.stage = stage;
    if (!this.stop) setCurrentDetails(`**${this.identity.kind}** ${this.identity.note}: ${stage}`);
  }

  private describeState(): string {
    return this.stop ? `${this.status} (${this.stop.kind})` : this.status;
  }

  private validateApproval(answer: ApprovalAnswer): void {
    const proposal = this.stop?.proposal;
    if (this.status !== 'awaiting-approval' || !proposal) {
      throw refuse('not-awaiting-approval', `run ${this.identity.runId} is not waiting for an approval (it is ${this.describeState()}); nothing was approved`);
    }
    if (answer.file !== proposal.path) {
      throw refuse('not-the-proposal', `${answer.file} is not the proposal run ${this.identity.runId} waits on (it waits on ${proposal.path}); nothing was approved`);
    }
    if (answer.key !== proposal.key) {
      throw refuse('stale-key', `key ${answer.key} is not the key of the stop run ${this.identity.runId} is in: it is stale or mistyped (run \`${this.rerun}\` to see the current one); nothing was approved`);
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
    const parsed = parseSelectionList(answer.text);
    if (!parsed.ok) throw refuse('bad-answer', `${answer.file} does not read as a selection list: ${parsed.findings.join('; ')}; nothing was approved`);
  }

  private validateAcknowledge(answer: AcknowledgeAnswer): void {
    if (this.status !== 'stopped' || this.stop?.kind !== 'checkout-changed') {
      throw refuse('nothing-to-acknowledge', `run ${this.identity.runId} is ${this.describeState()}: there are no changed paths to acknowledge`);
    }
    const shown = [...(this.stop.paths ?? [])].sort();
    const sent = [...answer.paths].sort();
    if (JSON.stringify(shown) !== JSON.stringify(sent)) {
      throw refuse('stale-paths', `the paths acknowledged are not the ones run ${this.identity.runId} stopped on (${shown.join(', ')}); nothing was acknowledged`);
    }
  }

  private enter(status: EditStatus, stop: EditStop, next: string): void {
    this.status = status;
    this.stop = stop;
    recordStatus(status === 'awaiting-approval' ? 'awaiting-approval' : 'stopped');
    const lines = [`**${stop.kind}** (${stop.disposition}) — ${stop.reason}`];
    if (stop.paths) lines.push(`paths: ${stop.paths.join(', ')}`);
    if (stop.evidence) lines.push(`evidence: ${stop.evidence}`);
    if (stop.proposal) lines.push(`inspect: ${stop.proposal.inspect.join(', ')}`, `key: ${stop.proposal.key}`);
    lines.push(`next: \`${next}\``);
    setCurrentDetails(lines.join('\n\n'));
  }

  private leave(): void {
    this.status = 'running';
    this.stop = undefined;
    recordStatus('running');
    this.at(this.stage);
  }

  /** Stops the run until the operator resumes it (the same command again). */
  async halt(stop: EditStop): Promise<void> {
    this.enter('stopped', stop, this.rerun);
    await condition(() => this.resumed);
    this.resumed = false;
    this.leave();
  }

  /** Stops on a checkout change until the operator acknowledges exactly these paths. */
  async acknowledge(paths: string[]): Promise<void> {
    const reason = `${paths.length} path${paths.length === 1 ? '' : 's'} changed in the checkout outside the run's directories while it was open; a worker may have written them`;
    this.enter('stopped', { kind: 'checkout-changed', disposition: 'inspect', reason, paths }, `commonplace review acknowledge ${this.identity.runId}`);
    await condition(() => this.acknowledged);
    this.acknowledged = false;
    this.leave();
  }

  /** The *decide* helper: proposes a file and waits for the approval Update its validator let through. */
  async decide(proposal: Proposal, reason: string): Promise<ApprovalAnswer> {
    this.enter(
      'awaiting-approval',
      { kind: 'awaiting-approval', disposition: 'operator', reason, proposal },
      `commonplace review approve ${this.identity.runId} ${proposal.path} --key ${proposal.key}`,
    );
    await condition(() => this.answer !== undefined);
    const answer = this.answer!;
    this.answer = undefined;
    this.leave();
    return answer;
  }

  /** Marks the run completed. */
  complete(stage: string): void {
    this.status = 'completed';
    this.stage = stage;
    setCurrentDetails(`**${this.identity.kind}** ${this.identity.note}: ${stage}`);
    recordStatus('completed');
  }
}

/** Why a launch that ran to an end spent its attempt without output to check. */
export function spentReason(outcome: AskOutcome): string {
  if (outcome.status === 'timed-out') return 'the last launch timed out';
  if (outcome.status === 'incomplete') return `the last launch did not write ${outcome.result.missing.join(', ')}`;
  return outcome.status;
}

/** What the guard compares against: the baseline snapshot, replaced when the operator acknowledges. */
export interface RunContext {
  checkout: string;
  note: string;
  prepared: PreparedEdit;
  baseline: string;
  /** Launches asked so far: each launch directory and launch ID is numbered. */
  seq: number;
}

/** The checkout guard at a step: paths changed outside the run's directories stop it until acknowledged. */
export async function guardStep(operator: Operator, ctx: RunContext): Promise<void> {
  for (;;) {
    const check = await guardCheck({ runDir: ctx.prepared.runDir, checkout: ctx.checkout, baseline: ctx.baseline });
    if (check.changed.length === 0) return;
    await operator.acknowledge(check.changed);
    ctx.baseline = check.snapshot;
  }
}

/**
 * Asks through the *checked* helper until the output is accepted; a stop (or a spent budget) stops the
 * run, and resuming asks again with a fresh budget. The last findings are carried into the next try.
 */
export async function untilAccepted<I, A>(operator: Operator, what: string, input: I, budget: number, tryOnce: (current: CheckedTry<I>) => Promise<TryOutcome<I, A>>): Promise<A[]> {
  const accepted: A[] = [];
  let pending = input;
  let carried: string[] = [];
  for (;;) {
    const result = await checked(pending, budget, async (current) => {
      const outcome = await tryOnce({ ...current, findings: current.findings.length > 0 ? current.findings : carried });
      if (outcome.kind !== 'stop') carried = outcome.findings;
      return outcome;
    });
    accepted.push(...result.accepted);
    if (result.status === 'accepted') return accepted;
    pending = result.pending;
    if (result.status === 'stopped') await operator.halt(result.stop);
    else await operator.halt({ kind: 'budget-exhausted', disposition: 'operator', reason: `${what}: attempt budget (${budget}) spent: ${result.findings.join('; ')}`.slice(0, 800) });
  }
}

export interface Candidate {
  manifestSha256: string;
  packet: string;
  closing: string;
  /** Set when the final text differs from the start: the exact manifest to approve. */
  proposal?: Proposal;
}

/**
 * The last step: with a changed text, the exact manifest is approved first; then the note and the
 * captured brief must be as the run began (else a conflict stop, nothing written), the guard must be
 * clear, and publication writes the manifest's files, the note last.
 */
export async function publishStep(
  operator: Operator,
  ctx: RunContext,
  candidate: Candidate,
  summary: Omit<EditSummary, 'outcome' | 'written' | 'launches' | 'packet' | 'closing'>,
): Promise<EditSummary> {
  if (candidate.proposal) {
    await guardStep(operator, ctx);
    operator.at('awaiting approval of the final text');
    await operator.decide(candidate.proposal, `the final text differs from the note: read ${candidate.proposal.inspect.join(' and ')}, then approve the exact ${candidate.proposal.path}`);
  }
  for (;;) {
    operator.at('checking the note and the brief before publication');
    const conflict = await checkConflict({ runDir: ctx.prepared.runDir, checkout: ctx.checkout, note: ctx.note, manifestSha256: candidate.manifestSha256 });
    if (conflict.paths.length === 0) {
      await guardStep(operator, ctx);
      operator.at('publishing');
      const published = await publishEdit({ runDir: ctx.prepared.runDir, checkout: ctx.checkout, note: ctx.note, manifestSha256: candidate.manifestSha256 });
      if (published.status === 'published') {
        const done: EditSummary = {
          ...summary,
          outcome: candidate.proposal ? 'published' : 'unchanged',
          written: published.written,
          launches: operator.launches,
          packet: candidate.packet,
          closing: candidate.closing,
        };
        await finishEdit({ runDir: ctx.prepared.runDir, summary: done });
        operator.complete(candidate.proposal ? `published: ${published.written.length} files written, the note last` : `no edit: ${published.written.length} files published (the packet and the results)`);
        return done;
      }
      await operator.halt({ kind: 'conflict', disposition: 'operator', reason: `${published.reason}; nothing was written`, paths: published.paths });
      continue;
    }
    await operator.halt({ kind: 'conflict', disposition: 'operator', reason: `${conflict.reason}; nothing was written`, paths: conflict.paths });
  }
}
