/** `commonplace review compare label RUN`: registration only; the action loads compare-label-run.ts. */
import type { Command } from 'commander';
import { action } from '../../shared/errors.js';
import type { LabelOptions } from './compare-label-run.js';
import { KB_HELP } from '../../shared/help-text.js';

/** The operator's verdicts on a compare run's disagreements (terminal or file); every route is then scored against them. */
export function registerCompareLabel(compare: Command): void {
  compare
    .command('label')
    .description("label a compare run's disagreements (pass, warn or fail): one pair at a time, or --file; rewrites the report")
    .argument('<run>', 'the compare run ID')
    .option('--file <file>', 'read labels from a file of `note criterion verdict` lines (verdict pass|warn|fail; # comments) instead of asking')
    .option('--by <name>', 'who labels, kept with each label (default: the login name)')
    .option('--kb <dir>', KB_HELP)
    .addHelpText(
      'after',
      `
In the terminal each pair the routes disagree on (and not labelled yet) shows every route's verdict and
reasons; answer p(ass), w(arn), f(ail), s(kip) or q(uit). Each answer is kept as it is given; the report
(report.json|md|html in the run's directory) is rewritten at the end.

A file's bad line stops the command naming the line and what is wrong; nothing is written then.

Examples:
  $ commonplace review compare label compare-2026-01-05-3f9c2a
  $ commonplace review compare label compare-2026-01-05-3f9c2a --file labels.txt
`,
    )
    .action(action(async (run: string, options: LabelOptions) => (await import('./compare-label-run.js')).runCompareLabel(run, options)));
}
