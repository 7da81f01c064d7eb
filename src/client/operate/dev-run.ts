/** The action of `commonplace dev`: the dev server, then a worker on it, until Ctrl-C. */
import { join, resolve } from 'node:path';
import { startDevServer } from '../../../temporal/server.js';
import { connectWorker } from '../shared/connection.js';
import { installQuietRuntime } from '../shared/runtime.js';
import { parseOptions } from '../shared/options.js';
import { metricsOption, metricsUrl } from './metrics-option.js';
import { holdListed, namedCheckouts, serving, startWorker, type HoldOptions } from './worker-start.js';
import { findCheckout } from '../../checkout/index.js';

/** Starts the dev server, then a worker on it; on Ctrl-C stops the worker, then the server. */
export async function runDev(options: { stateDir: string; port: number; uiPort: number; metrics?: string } & HoldOptions): Promise<void> {
  const { stateDir, port, uiPort } = options;
  const metrics = parseOptions(metricsOption, options.metrics);
  installQuietRuntime({ metrics });
  const checkouts = await namedCheckouts(options.kb.length > 0 || options.kbList !== undefined ? options.kb : currentCheckout());
  const server = await startDevServer({ dbFile: join(stateDir, 'temporal.db'), port, uiPort });
  try {
    const connection = await connectWorker({ address: server.address, namespace: 'default' });
    const { worker } = await startWorker({ connection, namespace: 'default', stateDir, checkouts });
    const unwatch = options.kbList !== undefined ? holdListed(worker, resolve(options.kbList)) : () => undefined;
    process.stderr.write(
      [
        `Temporal dev server: ${server.address} (namespace default)`,
        `Web UI:              ${server.uiUrl}`,
        `server log:          ${server.logFile}`,
        `worker:              ${serving(worker, options.kbList)}; run state in ${stateDir}`,
        `release:             ${worker.release} (the workflow code the worker runs)`,
        ...(metrics !== undefined ? [`metrics:             ${metricsUrl(metrics)} (Prometheus)`] : []),
        'Ctrl-C stops the worker, then the server.',
        '',
      ].join('\n'),
    );
    try {
      await worker.run();
    } finally {
      unwatch();
    }
    await connection.close();
  } finally {
    process.stderr.write('stopping the Temporal dev server...\n');
    await server.stop();
  }
}

/** The checkout of the current directory, when it is inside one: `commonplace dev` run in a KB holds it. */
function currentCheckout(): string[] {
  try {
    return [findCheckout(process.cwd()).root];
  } catch {
    return [];
  }
}
