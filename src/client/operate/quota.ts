import type { Command } from 'commander';
import { action } from '../shared/errors.js';
import { examples } from '../shared/help-text.js';

/** `commonplace quota` and `commonplace quota open ACCOUNT`. */
export function registerQuota(program: Command): void {
  const quota = program
    .command('quota')
    .description('list the quota gates (one per profile account) and their state')
    .option('--json', 'print the gates as one JSON document (shape quota-gates)')
    .addHelpText('after', examples('commonplace quota', 'commonplace quota --json'))
    .action(action(async (options: { json?: boolean }) => (await import('./quota-run.js')).runQuotaList(options)));
  quota
    .command('open <account>')
    .description("open an account's quota gate by hand (runs stopped on it with --auto-resume go on at once)")
    .option('--json', 'print what was opened as one JSON document (shape quota-opened)')
    .addHelpText('after', examples('commonplace quota open claude/team'))
    // `quota` has its own --json: read the merged options, so `quota open ACCOUNT --json` works wherever the flag stands.
    .action(
      action(async (account: string, _options: { json?: boolean }, command: Command) =>
        (await import('./quota-run.js')).runQuotaOpen(account, command.optsWithGlobals<{ json?: boolean }>()),
      ),
    );
}
