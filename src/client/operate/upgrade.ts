import type { Command } from 'commander';
import { action } from '../shared/errors.js';
import type { UpgradeCheckOptions } from './upgrade-run.js';

/** `commonplace upgrade check`: before workers restart on new code, whether every open run replays on it. */
export function registerUpgrade(program: Command): void {
  const upgrade = program.command('upgrade').description('what to check before workers restart on new workflow code (docs/upgrading.md)');
  upgrade
    .command('check')
    .description(
      'replay the history of every open run on the namespace (and recorded histories) against the installed workflow code; name each run that would not replay',
    )
    .option('--bundle <file>', "a workflow bundle to check instead of the installed code (another release's dist/workflow-bundle.js)")
    .option('--histories <dir>', 'also replay the history files under this directory (*.json, workflow IDs from workflow-ids.map)')
    .option('--no-open-runs', 'replay only the --histories files: no server is asked')
    .option('--json', 'print the outcome as one JSON document (shape upgrade-check)')
    .addHelpText(
      'after',
      [
        '',
        'Exit codes: 0 when every history replays, 1 when one would not (or on bad input).',
        '',
        'Examples:',
        '  $ commonplace upgrade check',
        '  $ commonplace upgrade check --bundle ../commonplace-next/dist/workflow-bundle.js --json',
        '  $ commonplace upgrade check --histories test/histories --no-open-runs',
        '',
      ].join('\n'),
    )
    .action(action(async (options: UpgradeCheckOptions) => (await import('./upgrade-run.js')).runUpgradeCheck(options)));
}
