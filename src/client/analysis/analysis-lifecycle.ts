import type { Command } from 'commander';
import { graceOption } from '../shared/run-end.js';
import { action } from '../shared/errors.js';
import { examples, KB_HELP } from '../shared/help-text.js';
import type { ResetOptions } from './analysis-lifecycle-run.js';

/** Says what it would discard; with `--yes` ends the workflow and removes the run's worktree, branch and state. */
export function registerReset(analysis: Command): void {
  graceOption(analysis.command('reset'))
    .description(
      'discard a run: cancel its workflow (terminating it after the grace period), remove its worktree, branch and state, so the next prepare starts fresh (says what first; --yes to do it)',
    )
    .argument('<run-id>', 'the run')
    .option('--yes', 'discard it (without it, reset only says what it would discard, and exits 1)')
    .option('--json', 'print what was (or would be) discarded as one JSON document (shape analysis-reset)')
    .option('--kb <dir>', KB_HELP)
    .addHelpText('after', examples('commonplace analysis reset AAS-2026-12-03-quill-01', 'commonplace analysis reset AAS-2026-12-03-quill-01 --yes --grace 60'))
    .action(action(async (runId: string, options: ResetOptions) => (await import('./analysis-lifecycle-run.js')).runReset(runId, options)));
}

/** `analysis integrate <run-id>`: the guarded merge of a published run's branch into main; repeating it is a no-op. */
export function registerIntegrate(analysis: Command): void {
  analysis
    .command('integrate')
    .description("merge a published run's branch into the checkout's branch (main), refusing when main changed the same paths; a repeat is a no-op")
    .argument('<run-id>', 'the published run')
    .option('--json', 'print the merge as one JSON document (shape analysis-integrate)')
    .option('--kb <dir>', KB_HELP)
    .addHelpText('after', examples('commonplace analysis integrate AAS-2026-12-03-quill-01'))
    .action(
      action(async (runId: string, options: { kb?: string; json?: boolean }) => (await import('./analysis-lifecycle-run.js')).runIntegrate(runId, options)),
    );
}
