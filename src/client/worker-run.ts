import { bundleWorkflowCode, Runtime, type NativeConnection, type Worker } from '@temporalio/worker';
import { resolve } from 'node:path';
import { createWorker, workflowsPath, type WorkerSettings } from '../worker.js';
import { connectionSettings, connectWorker } from './connection.js';
import { installQuietRuntime } from './runtime.js';

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/**
 * Creates the worker, saying first that the workflow code is being bundled: the bundling (webpack over
 * src/workflows) is most of a worker's start — about 2 s on an idle machine, several times that on a
 * busy one — and would otherwise pass in silence.
 */
export async function startWorker(settings: Omit<WorkerSettings, 'workflowBundle'>): Promise<{ worker: Worker; bundledMs: number }> {
  process.stderr.write('bundling the workflow code...\n');
  const started = Date.now();
  const workflowBundle = await bundleWorkflowCode({ workflowsPath, logger: Runtime.instance().logger });
  const bundledMs = Date.now() - started;
  return { worker: await createWorker({ ...settings, workflowBundle }), bundledMs };
}

/** Connects, bundles, then polls the `commonplace` task queue until Ctrl-C, saying each step on stderr. */
export async function runWorker(options: { state: string; maxLaunches: number }): Promise<void> {
  const { maxLaunches } = options;
  installQuietRuntime();
  const settings = connectionSettings();
  process.stderr.write(`connecting to ${settings.address} (namespace ${settings.namespace})...\n`);
  const connection: NativeConnection = await connectWorker(settings);
  const { worker, bundledMs } = await startWorker({
    connection,
    namespace: settings.namespace,
    stateDir: resolve(options.state),
    maxConcurrentActivityTaskExecutions: maxLaunches,
  });
  process.stderr.write(
    `worker ready on ${settings.address} (namespace ${settings.namespace}, task queue commonplace, up to ${maxLaunches} launches at once; workflow code bundled in ${seconds(bundledMs)}); Ctrl-C stops it\n`,
  );
  await worker.run();
  await connection.close();
}
