/**
 * `commonplace review run full-pass <note>`: registration only (options, help). The action loads
 * review-full-pass-run.ts, which holds the editing runs' shared machinery, when the command runs.
 */
import { Option, type Command } from 'commander';
import { action } from '../shared/errors.js';

export interface EditCommandOptions {
  profile?: string;
  concurrency?: string;
  kb?: string;
  profiles?: string;
  scenario?: string;
  detach?: boolean;
  maxCost?: string;
  json?: boolean;
}

/** Adds the options every editing run shares. */
export function editOptions(command: Command): Command {
  return command
    .option('--profile <name>', 'worker profile (default claude; a repeat keeps the run\'s)')
    .addOption(new Option('--concurrency <n>', 'review launches in flight at once').default('4'))
    .option('--kb <dir>', 'KB checkout (default: the Git root above the current directory that holds kb/)')
    .option('--profiles <file>', 'worker profiles file (default: the KB\'s, else the shipped one)')
    .option('--scenario <file>', 'fake-harness scenario file (profile fake)')
    .option('--max-cost <usd>', 'stop (spend-limit) before a launch that would take the run past this many US dollars; on a stopped run, the new cap it resumes with')
    .option('--detach', 'start or continue the run and return without following it')
    .addOption(new Option('--json', 'print how the run came out as one run-outcome JSON document on stdout (progress stays on stderr)').conflicts('detach'));
}

/** `commonplace review run full-pass <note>`: the gates, the critique and an editor over one note. */
export function registerRunFullPass(run: Command): void {
  editOptions(
    run
      .command('full-pass')
      .description('review a note against its gates (bundled) and the critique, edit it, and publish the edit after approval of the exact manifest')
      .argument('<note>', 'the note, as a path'),
  )
    .option('--direction <text>', 'a steer for the editor, recorded with the run')
    .addHelpText(
      'after',
      `
Exit status: 0 completed; 2 stopped or waiting for approval (the stop is printed with the one
command to type next) or ended exhausted; 1 bad input, a failure or an unreachable server.

Examples:
  $ commonplace review run full-pass kb/notes/tidy-desk.md --max-cost 2
  $ commonplace review run full-pass kb/notes/tidy-desk.md --direction 'keep the examples' --json
`,
    )
    .action(action(async (noteArg: string, options: EditCommandOptions & { direction?: string }) => (await import('./review-full-pass-run.js')).runFullPass(noteArg, options)));
}
