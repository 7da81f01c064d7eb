import type { Command } from 'commander';
import { join, resolve } from 'node:path';
import { startDevServer } from '../../temporal/server.js';
import { createWorker } from '../worker.js';
import { connectWorker } from './connection.js';
import { action } from './errors.js';
import { installQuietRuntime } from './runtime.js';

/** `commonplace dev`: the embedded default — a local Temporal dev server and a worker, until Ctrl-C. */
export function registerDev(program: Command): void {
  program
    .command('dev')
    .description('start a local Temporal dev server (SQLite under .commonplace/, Web UI on 8233) and a worker, until Ctrl-C')
    .option('--state <dir>', 'directory for the SQLite file and run state', '.commonplace')
    .option('--port <port>', 'gRPC port of the dev server', '7233')
    .option('--ui-port <port>', 'port of the Web UI', '8233')
    .action(
      action(async (options: { state: string; port: string; uiPort: string }) => {
        installQuietRuntime();
        const stateDir = resolve(options.state);
        const dbFile = join(stateDir, 'temporal.db');
        process.stderr.write(`starting the Temporal dev server (state ${dbFile})...\n`);
        const server = await startDevServer({ dbFile, port: Number(options.port), uiPort: Number(options.uiPort) });
        try {
          const connection = await connectWorker({ address: server.address, namespace: 'default' });
          const worker = await createWorker({ connection, namespace: 'default', stateDir });
          process.stderr.write(
            [
              `Temporal dev server: ${server.address} (namespace default)`,
              `Web UI:              ${server.uiUrl}`,
              `server log:          ${server.logFile}`,
              `worker:              task queue commonplace, run state in ${stateDir}`,
              'Ctrl-C stops the worker, then the server.',
              '',
            ].join('\n'),
          );
          await worker.run();
          await connection.close();
        } finally {
          process.stderr.write('stopping the Temporal dev server...\n');
          await server.stop();
        }
      }),
    );
}
