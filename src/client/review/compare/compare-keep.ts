/** `commonplace review compare keep RUN`: registration only; the action loads compare-keep-run.ts. */
import type { Command } from 'commander';
import { action } from '../../shared/errors.js';
import type { KeepOptions } from './compare-keep-run.js';
import { KB_HELP } from '../../shared/help-text.js';

/** Keeps a compare run as calibration records, one per criterion, that a sweep's per-criterion routing may rest on. */
export function registerCompareKeep(compare: Command): void {
  compare
    .command('keep')
    .description('keep a compare run as calibration records in kb/reports/calibration/ (one per criterion), the basis for per-criterion routing')
    .argument('<run>', 'the compare run ID')
    .option('--criteria <ids>', 'keep only these criteria (comma-separated IDs as the report names them)')
    .option('--reference <route>', "the reference the records' κ is against: a route of the run, or labels (default: the run's reference)")
    .option('--kb <dir>', KB_HELP)
    .addHelpText(
      'after',
      `
A record is refused for a criterion whose file changed since the run's verdicts (it would be stale at
once: compare again). Commit the records with the KB; \`commonplace validate\` checks them.

Examples:
  $ commonplace review compare keep compare-2026-01-05-3f9c2a
  $ commonplace review compare keep compare-2026-01-05-3f9c2a --criteria frontmatter/title-as-claim --reference labels
`,
    )
    .action(action(async (run: string, options: KeepOptions) => (await import('./compare-keep-run.js')).runCompareKeep(run, options)));
}
