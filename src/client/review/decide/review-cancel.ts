/** `review cancel RUN`: cancels a run, waits out the grace period, terminates only then, and says which. Action: review-cancel-run.ts. */
import type { Command } from 'commander';
import { graceOption } from '../../shared/run-end.js';
import { action } from '../../shared/errors.js';
import type { CancelOptions } from './review-cancel-run.js';

export function registerCancel(review: Command): void {
  graceOption(
    review
      .command('cancel')
      .description('end a sweep or an editing run: cancel it, wait for it to close (up to --grace seconds), then terminate it if it has not')
      .argument('<run>', "the sweep's run ID, the editing run's ID, or a workflow ID (gates/…, full-pass/…, revise/…)")
      .option('--kb <dir>', 'KB checkout, for an editing run (default: the Git root above the current directory that holds kb/)'),
  )
    .option('--json', 'print how the run ended as one JSON document (shape run-ended)')
    .addHelpText(
      'after',
      `
Exit codes: 0 the run is closed (cancelled, terminated after the grace period, or closed already); 1 anything else (no such run, a bad --grace, no server).

Examples:
  $ commonplace review cancel GS-3f9c2a-1b2c3d4e5f
  $ commonplace review cancel full-pass-notes_claim-1a2b3c4d5e --grace 120 --json
`,
    )
    .action(action(async (run: string, options: CancelOptions) => (await import('./review-cancel-run.js')).runCancel(run, options)));
}
