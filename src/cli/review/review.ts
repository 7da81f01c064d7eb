import type { Command } from 'commander';
import { registerRetry, registerRunGates } from './review-gates.js';
import { registerSchedule } from './review-schedule.js';
import { registerReviewStatus } from './review-status.js';
import { registerRunFullPass } from './review-full-pass.js';
import { registerRunRevise } from './review-revise.js';
import { registerAcknowledge, registerApprove } from './review-approve.js';
import { registerPacket } from './review-packet.js';
import { registerCancel } from './review-cancel.js';
import { registerInspect } from './review-inspect.js';
import { registerCompare } from './compare.js';

/** `commonplace review …`: freshness status, sweeps, retries and schedules. */
export function registerReview(program: Command): Command {
  const review = program.command('review').description('review a KB against its criteria: result files, freshness, gate sweeps, edits, approvals, cancelling runs, schedules');
  const run = review.command('run').description('run a review workflow');
  registerReviewStatus(review);
  registerRunGates(run);
  registerRetry(review);
  registerSchedule(review);
  registerRunFullPass(run);
  registerRunRevise(run);
  registerApprove(review);
  registerAcknowledge(review);
  registerPacket(review);
  registerCancel(review);
  registerInspect(review);
  registerCompare(review);
  return review;
}
