import type { Command } from 'commander';
import { action, UserError } from './errors.js';

export interface WorkerCommandOptions {
  state: string;
  maxLaunches: string;
}

/** `--max-launches` as a number, or the one-line error naming it. */
export function maxLaunchesOption(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new UserError(`--max-launches must be a positive whole number, got "${value}"`);
  return Number(value);
}

/** `commonplace worker`: one worker against TEMPORAL_ADDRESS / TEMPORAL_NAMESPACE; run as many as the work needs. */
export function registerWorker(program: Command): void {
  program
    .command('worker')
    .description('run a worker on task queue "commonplace" against TEMPORAL_ADDRESS / TEMPORAL_NAMESPACE, until Ctrl-C')
    .option('--state <dir>', 'directory for run state this worker writes (COMMONPLACE_STATE_DIR)', process.env.COMMONPLACE_STATE_DIR ?? '.commonplace')
    .option('--max-launches <n>', 'harness launches this worker runs at once', '8')
    .addHelpText(
      'after',
      '\nExamples:\n  $ commonplace worker\n  $ TEMPORAL_ADDRESS=temporal.internal:7233 commonplace worker --state /var/lib/commonplace --max-launches 4\n',
    )
    .action(
      action(async (options: WorkerCommandOptions) => {
        const maxLaunches = maxLaunchesOption(options.maxLaunches);
        // Loading the Temporal SDK and the activities takes seconds on a busy machine: say so before it starts.
        process.stderr.write('loading the worker (the Temporal SDK, the activities)...\n');
        await (await import('./worker-run.js')).runWorker({ state: options.state, maxLaunches });
      }),
    );
}
