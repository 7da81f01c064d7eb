/** `review inspect RUN`: a run's whole record. Options and help; the action is review-inspect-run.ts. */
import type { Command } from 'commander';
import { action } from '../../shared/errors.js';
import type { InspectOptions } from './review-inspect-run.js';
import { KB_HELP } from '../../shared/help-text.js';

export function registerInspect(review: Command): void {
  review
    .command('inspect')
    .description('show a sweep, full pass or revision: status and stops, launches, problems, proposals, the packet')
    .argument('<run>', "the sweep's run ID (GS-…), the editing run's ID, or a workflow ID (gates/…, full-pass/…, revise/…)")
    .option('--kb <dir>', KB_HELP)
    .option('--json', 'print the run as one JSON document (shape review-inspect)')
    .addHelpText(
      'after',
      `
Live from the server while the run is open; from its run directory once it has closed, or when no
server answers. Launch records (duration, tokens, cost) live in the workflow histories: they are
read from the server whenever it answers.

Exit codes: 0 printed; 1 no such run, a bad run ID, not inside a checkout.

Examples:
  $ commonplace review inspect GS-2d0f334a-4e22ce06b2
  $ commonplace review inspect full-pass-notes_claim-1a2b3c4d5e --json
`,
    )
    .action(action(async (run: string, options: InspectOptions) => (await import('./review-inspect-run.js')).runInspect(run, options)));
}
