import type { Command } from 'commander';
import { action } from '../shared/errors.js';
import { examples } from '../shared/help-text.js';
import type { ProbeOptions } from './probe-run.js';

/** `commonplace probe`: checks a worker profile end to end through a real workflow and launch. */
export function registerProbe(program: Command): void {
  program
    .command('probe')
    .description('run one launch of a worker profile through a workflow and print what the launch activity saw')
    .requiredOption('--profile <name>', 'worker profile to probe (claude, codex, pi, fake, or one of the KB)')
    .option('--profiles <file>', "worker profiles file (default: the KB's kb/instructions/worker-profiles.yaml, else the shipped one)")
    .option('--kb <dir>', 'KB checkout whose profiles apply')
    .option('--scenario <file>', 'fake-harness scenario file (profile fake)')
    .option('--json', 'print the outcome as one JSON document (shape run-outcome; the probe under result)')
    .addHelpText('after', examples('commonplace probe --profile claude', 'commonplace probe --profile fake --json'))
    .action(action(async (options: ProbeOptions) => (await import('./probe-run.js')).runProbe(options)));
}
