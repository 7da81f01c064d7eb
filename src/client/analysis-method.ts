import type { Command } from 'commander';
import { findCheckout } from '../kb/checkout.js';
import { KbError } from '../kb/errors.js';
import { InstallError, installMethod } from '../activities/analysis/method.js';
import { DEFAULT_PLAN } from '../activities/analysis/prepare.js';
import { action, UserError } from './errors.js';

/**
 * `analysis install-method`: copies the shipped agentic-analysis method (plan, job instructions,
 * layout, member types) into the KB checkout, refusing to overwrite files the operator changed
 * unless `--force`; the operator then commits it.
 */
export function registerInstallMethod(analysis: Command): void {
  analysis
    .command('install-method')
    .description('copy the shipped agentic-analysis method (plan, job instructions, layout, member types) into the KB checkout; files you changed are refused unless --force')
    .option('--force', 'overwrite files of the method that differ from the shipped ones')
    .option('--kb <dir>', 'KB checkout (default: the Git root above the current directory that holds kb/)')
    .action(
      action(async (options: { force?: boolean; kb?: string }) => {
        let report;
        try {
          report = await installMethod(findCheckout(process.cwd(), options.kb).root, { force: options.force ?? false });
        } catch (error) {
          if (error instanceof InstallError) throw new UserError(error.message);
          if (error instanceof KbError) throw new UserError(error.message);
          throw error;
        }
        const { checkout, written, replaced, unchanged, warnings } = report;
        const lines: string[] = [];
        if (written.length + replaced.length === 0) {
          lines.push(`the agentic-analysis method is already installed in ${checkout}: ${unchanged.length} files identical, nothing written`);
        } else {
          lines.push(`installed the agentic-analysis method in ${checkout}`);
          for (const file of written) lines.push(`  wrote     ${file}`);
          for (const file of replaced) lines.push(`  replaced  ${file}`);
          if (unchanged.length > 0) lines.push(`  ${unchanged.length} file${unchanged.length === 1 ? '' : 's'} already identical`);
          lines.push(
            `next: commit it — git -C ${checkout} add kb/instructions/agentic-analysis kb/types/agentic-analysis && git -C ${checkout} commit -m "Add the agentic-analysis method"`,
            `then: commonplace analysis prepare <system> --source <path> (the plan is ${DEFAULT_PLAN})`,
          );
        }
        for (const warning of warnings) lines.push(`warning: ${warning}`);
        process.stdout.write(`${lines.join('\n')}\n`);
      }),
    );
}
