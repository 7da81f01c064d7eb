import type { Command } from 'commander';
import { registerRetry, registerRunGates } from './sweep/review-gates.js';
import { registerSchedule } from './sweep/review-schedule.js';
import { registerReviewStatus } from './sweep/review-status.js';
import { registerRunFullPass } from './edit/review-full-pass.js';
import { registerRunRevise } from './edit/review-revise.js';
import { registerAcknowledge, registerApprove } from './decide/review-approve.js';
import { registerPacket } from './edit/review-packet.js';
import { registerCancel } from './decide/review-cancel.js';
import { registerInspect } from './inspect/review-inspect.js';
import { registerCompare } from './compare/compare.js';

/** `commonplace review …`: freshness status, sweeps, retries and schedules. */
export function registerReview(program: Command): Command {
  const review = program
    .command('review')
    .description('review a KB against its criteria: result files, freshness, gate sweeps, edits, approvals, cancelling runs, schedules');
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
