import { join } from 'node:path';
import { startDevServer } from '../../temporal/server.js';
import { connectWorker } from './connection.js';
import { installQuietRuntime } from './runtime.js';
import { startWorker } from './worker-run.js';

/** Starts the dev server, then a worker on it; on Ctrl-C stops the worker, then the server. */
export async function runDev(options: { stateDir: string; port: number; uiPort: number }): Promise<void> {
  const { stateDir, port, uiPort } = options;
  installQuietRuntime();
  const server = await startDevServer({ dbFile: join(stateDir, 'temporal.db'), port, uiPort });
  try {
    const connection = await connectWorker({ address: server.address, namespace: 'default' });
    const { worker } = await startWorker({ connection, namespace: 'default', stateDir });
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
}
