/** `commonplace review approve` and `review acknowledge`: registration only; the actions load review-approve-run.ts. */
import { Option, type Command } from 'commander';
import { action } from '../../shared/errors.js';
import type { AcknowledgeOptions, ApproveOptions } from './review-approve-run.js';
import { KB_HELP } from '../../shared/help-text.js';

const jsonOption = () =>
  new Option('--json', 'print how the run came out as one run-outcome JSON document on stdout (progress stays on stderr)').conflicts('detach');

/** `commonplace review approve RUN FILE --key KEY`: the operator's answer to the proposal the run waits on. */
export function registerApprove(review: Command): void {
  review
    .command('approve')
    .description('approve the proposal a full pass or revision waits on: a selection list (edited or not), or the exact generated publication.json')
    .argument('<run>', 'the run ID (or its workflow ID)')
    .argument('<file>', 'the proposal file, relative to the current directory or to the run directory')
    .requiredOption('--key <key>', 'the key the run showed where it stopped')
    .option('--kb <dir>', KB_HELP)
    .option('--detach', 'approve and return without following the run')
    .addOption(jsonOption())
    .addHelpText(
      'after',
      `
Exit status: 0 the run completed after the approval; 2 it stopped again or waits for the next
approval (printed with the one command to type next); 1 a refused answer (stale key, changed
inputs, a selection list that cannot be applied), an unknown run or an unreachable server.

Example:
  $ commonplace review approve full-pass-notes_tidy-desk-3f2a9c1b07de artifact/publication.json --key 5e1f0a9c3b7d2e84
`,
    )
    .action(action(async (run: string, file: string, options: ApproveOptions) => (await import('./review-approve-run.js')).runApprove(run, file, options)));
}

/** `commonplace review acknowledge RUN`: the operator owns the paths a checkout-changed stop reported. */
export function registerAcknowledge(review: Command): void {
  review
    .command('acknowledge')
    .description('own the paths that changed in the checkout while a run was open, and let it go on')
    .argument('<run>', "the run ID (or its workflow ID), or a gate sweep's run ID (GS-…)")
    .option('--kb <dir>', KB_HELP)
    .option('--detach', 'acknowledge and return without following the run')
    .addOption(jsonOption())
    .addHelpText(
      'after',
      `
Exit status: 0 the run completed; 2 it stopped again (printed with the one command to type next);
1 the run is not stopped on a checkout change, is unknown, or the server is unreachable.

Example:
  $ commonplace review acknowledge full-pass-notes_tidy-desk-3f2a9c1b07de
`,
    )
    .action(action(async (run: string, options: AcknowledgeOptions) => (await import('./review-approve-run.js')).runAcknowledge(run, options)));
}
