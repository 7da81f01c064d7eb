/** `commonplace review run revise`: registration only; the action loads review-revise-run.ts. */
import type { Command } from 'commander';
import { action } from '../../shared/errors.js';
import { editOptions } from './edit-options.js';
import type { ReviseCommandOptions } from './review-revise-run.js';

/** `review run revise <note> (--plan FILE | --assess)`: simplification passes; a new run needs a mode, a repeat over the same text keeps its run's. */
export function registerRunRevise(run: Command): void {
  editOptions(
    run
      .command('revise')
      .description(
        'simplify a note by passes: a fixed plan (--plan FILE) or one an assessment chooses (--assess); selection passes and a changed note stop for approval',
      )
      .argument('<note>', 'the note, as a path'),
  )
    .option('--plan <file>', 'run the passes this plan file names (YAML: passes: [tighten, plain-wording, ...])')
    .option('--assess', 'let an assessment worker choose the passes; the plan it chose is kept in the run directory')
    .addHelpText(
      'after',
      `
Exit status: 0 completed; 2 stopped or waiting for approval (the stop is printed with the one
command to type next) or ended exhausted; 1 usage errors (both or neither of --plan and --assess
for a new run), bad input, a failure or an unreachable server.

Examples:
  $ commonplace review run revise kb/notes/tidy-desk.md --plan plan.yaml
  $ commonplace review run revise kb/notes/tidy-desk.md --assess --max-cost 1.50 --json
`,
    )
    .action(action(async (noteArg: string, options: ReviseCommandOptions) => (await import('./review-revise-run.js')).runRevise(noteArg, options)));
}
