/** The action of `commonplace worker`: connect, bundle, hold the named checkouts, poll until Ctrl-C. */
import type { NativeConnection } from '@temporalio/worker';
import { resolve } from 'node:path';
import { connectionSettings, connectWorker } from '../shared/connection.js';
import { missingAttributesMessage, missingSearchAttributes } from '../shared/preflight.js';
import { installQuietRuntime } from '../shared/runtime.js';
import { parseOptions } from '../shared/options.js';
import { metricsOption, metricsUrl } from './metrics-option.js';
import { holdListed, namedCheckouts, serving, startWorker, type HoldOptions } from './worker-start.js';

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** Connects, bundles, then polls the shared queue and each held checkout's until Ctrl-C, saying each step on stderr. */
export async function runWorker(
  options: { state: string; maxLaunches: number; metrics?: string; heartbeatThrottle?: number; workflowThreads?: number } & HoldOptions,
): Promise<void> {
  const { maxLaunches } = options;
  const metrics = parseOptions(metricsOption, options.metrics);
  installQuietRuntime({ metrics });
  if (metrics !== undefined) process.stderr.write(`metrics for Prometheus: ${metricsUrl(metrics)}\n`);
  const checkouts = await namedCheckouts(options.kb);
  const settings = connectionSettings();
  process.stderr.write(`connecting to ${settings.address} (namespace ${settings.namespace})...\n`);
  const connection: NativeConnection = await connectWorker(settings);
  // The worker goes on without them (a namespace can be fixed while it runs), but says once what fails until then.
  const missing = await missingSearchAttributes(connection.operatorService, settings.namespace);
  if (missing !== undefined && missing.length > 0) {
    process.stderr.write(
      `commonplace: warning: ${await missingAttributesMessage(missing, settings)}; until then no run starts there, and the runs this worker executes fail their workflow tasks when they record their status\n`,
    );
  }
  const { worker, bundledMs, prebuilt } = await startWorker({
    connection,
    namespace: settings.namespace,
    stateDir: resolve(options.state),
    checkouts,
    maxConcurrentActivityTaskExecutions: maxLaunches,
    ...(options.heartbeatThrottle !== undefined && { heartbeatThrottle: options.heartbeatThrottle }),
    ...(options.workflowThreads !== undefined && { workflowThreads: options.workflowThreads }),
  });
  const unwatch = options.kbList !== undefined ? holdListed(worker, resolve(options.kbList)) : () => undefined;
  process.stderr.write(
    `worker ready on ${settings.address} (namespace ${settings.namespace}; ${serving(worker, options.kbList)}; up to ${maxLaunches} launches at once; ${prebuilt ? 'prebuilt workflow bundle checked' : 'workflow code bundled'} in ${seconds(bundledMs)}; release ${worker.release}); Ctrl-C stops it\n`,
  );
  try {
    await worker.run();
  } finally {
    unwatch();
  }
  await connection.close();
  process.stderr.write(`worker stopped: no longer polling ${settings.address} (namespace ${settings.namespace})\n`);
}
