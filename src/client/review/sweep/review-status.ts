/**
 * `commonplace review status`: freshness of every applicable pair, from the files alone (no server,
 * no Git), so an operator sees what the next sweep would ask. Options and help only; the action
 * loads from review-status-run.ts.
 */
import type { Command } from 'commander';
import { action } from '../../shared/errors.js';
import type { StatusOptions } from './review-status-run.js';

const collect = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

/** Exit 0 when it reports (stale pairs included); 1 on bad input (a pattern that matches nothing, no checkout) or a usage error. */
export function registerReviewStatus(parent: Command): void {
  parent
    .command('status')
    .description(
      'freshness of review results per criterion kind (gate, type, collection): fresh, stale (note, criterion, both), missing and malformed pairs, and orphaned results',
    )
    .option('--notes <glob>', 'only notes whose path matches (repeatable; e.g. kb/notes/**, notes/foo.md)', collect)
    .option('--gates <glob>', 'only gates whose ID matches (repeatable; e.g. prose/*, or a lens name)', collect)
    .option('--criteria <kinds>', 'criterion kinds to pair, comma-separated: gates, types, collections (default: all three; gates only when --gates is given)')
    .option('--stale', 'list every pair that is not fresh (what a sweep would ask)')
    .option('--orphans', 'list orphaned results and stray files in the results tree')
    .option('--json', 'print the status as one JSON document (shape review-status)')
    .option('--prune-orphans', 'list orphaned results, then delete them and the directories that leaves empty')
    .option('--kb <dir>', 'the KB checkout (default: the Git root above the current directory that holds kb/)')
    .addHelpText(
      'after',
      `
Exit codes: 0 a report (stale pairs, orphans and problems included); 1 anything else.

Examples:
  $ commonplace review status --stale --gates 'prose/*'
  $ commonplace review status --criteria types,collections
  $ commonplace review status --json --kb ~/notes
`,
    )
    .action(
      action(async (_options: StatusOptions, command: Command) =>
        (await import('./review-status-run.js')).runReviewStatus(command.optsWithGlobals<StatusOptions>()),
      ),
    );
}
