/** The options every editing run registers (`review run full-pass`, `review run revise`): commander only; edit-start.ts reads them. */
import { Option, type Command } from 'commander';
import { KB_HELP } from '../../shared/help-text.js';

/** Adds the options every editing run shares. */
export function editOptions(command: Command): Command {
  return command
    .option('--profile <name>', "worker profile (default claude; a repeat keeps the run's)")
    .addOption(new Option('--concurrency <n>', 'review launches in flight at once').default('4'))
    .option('--kb <dir>', KB_HELP)
    .option('--profiles <file>', "worker profiles file (default: the KB's, else the shipped one)")
    .option('--scenario <file>', 'fake-harness scenario file (profile fake)')
    .option(
      '--max-cost <usd>',
      'stop (spend-limit) before a launch that would take the run past this many US dollars; on a stopped run, the new cap it resumes with',
    )
    .option('--detach', 'start or continue the run and return without following it')
    .addOption(new Option('--json', 'print how the run came out as one run-outcome JSON document on stdout (progress stays on stderr)').conflicts('detach'));
}
