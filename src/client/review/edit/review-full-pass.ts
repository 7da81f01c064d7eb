/** `commonplace review run full-pass <note>`: registration only; the action loads review-full-pass-run.ts. */
import type { Command } from 'commander';
import { action } from '../../shared/errors.js';
import { editOptions } from './edit-options.js';
import type { FullPassCommandOptions } from './review-full-pass-run.js';

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
    .action(action(async (noteArg: string, options: FullPassCommandOptions) => (await import('./review-full-pass-run.js')).runFullPass(noteArg, options)));
}
