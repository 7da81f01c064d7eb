/** The Updates' validators: a refusal is a non-retryable `ApplicationFailure` whose message says what the run is and what to do. */
import { ApplicationFailure } from '@temporalio/workflow';
import { approvalRefusal } from '../review/edit/approval-key.js';
import type { NextCommands } from '../runs/run-commands.js';
import { resumeCapProblem, type SpendTotals } from '../runs/spend.js';
import { STOP_RULES, type AcknowledgeAnswer, type ApprovalAnswer, type Proposal, type ResumeRequest, type RunStatus, type Stop } from '../runs/stop.js';

export interface RefusalContext {
  runId: string;
  status: RunStatus;
  stage: string;
  stops: readonly Stop[];
  /** A resume is under way (its Update, or the auto-resume timer). */
  resuming: boolean;
  next: NextCommands;
  spent: SpendTotals;
  /** The cap the run stopped at, if any: a resume raises it. */
  capUsd?: number;
}

/** The CLI prints the message as it is. */
export function refuse(type: string, message: string): ApplicationFailure {
  return ApplicationFailure.create({ type, message, nonRetryable: true });
}

function describeState(run: RefusalContext): string {
  return run.stops.length > 0 ? `${run.status} (${run.stops.map((stop) => stop.kind).join(', ')})` : `${run.status} at ${run.stage}`;
}

/** A resume is refused unless the run is stopped on a stop `resume` ends, none is under way, and a spend-limit stop gets a cap with room. */
export function checkResume(run: RefusalContext, request?: ResumeRequest): void {
  if (run.resuming) throw refuse('nothing-to-resume', `run ${run.runId} is already resuming`);
  const resumable = run.stops.some((stop) => STOP_RULES[stop.kind].by === 'resume');
  if (run.status !== 'stopped' || !resumable) {
    const ended = run.status === 'exhausted' ? `; it ended (next: \`${run.next.ended}\`)` : '';
    throw refuse('nothing-to-resume', `run ${run.runId} is ${describeState(run)}: there is nothing to resume${ended}`);
  }
  const problem = resumeCapProblem({
    stoppedAtCap: run.stops.some((stop) => stop.kind === 'spend-limit'),
    newCapUsd: request?.maxCostUsd,
    totals: run.spent,
    ...(run.capUsd !== undefined && { capUsd: run.capUsd }),
  });
  if (problem !== undefined) throw refuse('spend-cap', `run ${run.runId} was not resumed: ${problem}`);
}

/** An approval is refused unless the run waits on that proposal with that key and inputs, and a free-text answer can be applied. */
export function checkApproval(
  run: RefusalContext,
  answer: ApprovalAnswer,
  checkAnswer?: (answer: ApprovalAnswer, proposal: Proposal) => string | undefined,
): void {
  const stop = run.stops[0];
  if (run.status !== 'awaiting-approval' || stop?.kind !== 'awaiting-approval') {
    throw refuse('not-awaiting-approval', `run ${run.runId} is not waiting for an approval (it is ${describeState(run)}); nothing was approved`);
  }
  const proposal = stop.proposal;
  const refusal = approvalRefusal(proposal, answer, { runId: run.runId, resume: run.next.resume });
  if (refusal !== undefined) throw refuse(refusal.type, refusal.message);
  if (proposal.exact) return;
  const problem = checkAnswer?.(answer, proposal);
  if (problem !== undefined) throw refuse('bad-answer', `${answer.file} ${problem}; nothing was approved`);
}

/** An acknowledgement is refused unless the run stopped on a checkout change and names exactly the paths it showed. */
export function checkAcknowledge(run: RefusalContext, answer: AcknowledgeAnswer): void {
  const stop = run.stops[0];
  if (run.status !== 'stopped' || stop?.kind !== 'checkout-changed') {
    throw refuse('nothing-to-acknowledge', `run ${run.runId} is ${describeState(run)}: there are no changed paths to acknowledge`);
  }
  const shown = [...stop.paths].sort();
  const sent = [...answer.paths].sort();
  if (JSON.stringify(shown) !== JSON.stringify(sent)) {
    throw refuse('stale-paths', `the paths acknowledged are not the ones run ${run.runId} stopped on (${shown.join(', ')}); nothing was acknowledged`);
  }
}
