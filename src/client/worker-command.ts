import type { Command } from 'commander';
import { resolve } from 'node:path';
import { createWorker } from '../worker.js';
import { connectionSettings, connectWorker } from './connection.js';
import { action, UserError } from './errors.js';
import { installQuietRuntime } from './runtime.js';

/** `commonplace worker`: one worker against TEMPORAL_ADDRESS / TEMPORAL_NAMESPACE; run as many as the work needs. */
export function registerWorker(program: Command): void {
  program
    .command('worker')
    .description('run a worker on task queue "commonplace" against TEMPORAL_ADDRESS / TEMPORAL_NAMESPACE, until Ctrl-C')
    .option('--state <dir>', 'directory for run state this worker writes', process.env.COMMONPLACE_STATE_DIR ?? '.commonplace')
    .option('--max-launches <n>', 'harness launches this worker runs at once', '8')
    .action(
      action(async (options: { state: string; maxLaunches: string }) => {
        const maxLaunches = Number(options.maxLaunches);
        if (!Number.isInteger(maxLaunches) || maxLaunches < 1) throw new UserError(`--max-launches must be a positive whole number, got "${options.maxLaunches}"`);
        installQuietRuntime();
        const settings = connectionSettings();
        const connection = await connectWorker(settings);
        const worker = await createWorker({
          connection,
          namespace: settings.namespace,
          stateDir: resolve(options.state),
          maxConcurrentActivityTaskExecutions: maxLaunches,
        });
        process.stderr.write(`worker on ${settings.address} (namespace ${settings.namespace}, task queue commonplace); Ctrl-C stops it\n`);
        await worker.run();
        await connection.close();
      }),
    );
}
