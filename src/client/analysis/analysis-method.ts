import type { Command } from 'commander';
import { action } from '../shared/errors.js';
import { examples, KB_HELP } from '../shared/help-text.js';

export function registerInstallMethod(analysis: Command): void {
  analysis
    .command('install-method')
    .description(
      'copy the shipped agentic-analysis method (plan, job instructions, layout, member types) into the KB checkout; files you changed are refused unless --force',
    )
    .option('--force', 'overwrite files of the method that differ from the shipped ones')
    .option('--json', 'print what was written, replaced and left as one JSON document (shape analysis-install-method)')
    .option('--kb <dir>', KB_HELP)
    .addHelpText('after', examples('commonplace analysis install-method --kb ~/notes'))
    .action(action(async (options: { force?: boolean; kb?: string; json?: boolean }) => (await import('./analysis-method-run.js')).runInstallMethod(options)));
}
