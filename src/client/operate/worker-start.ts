/** A worker's start, shared by `commonplace worker` and `commonplace dev`. */
import { bundleWorkflowCode, Runtime } from '@temporalio/worker';
import { watchFile, unwatchFile } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { checkoutAt, checkoutQueue } from '../../checkout/index.js';
import { processTracing } from '../../observability/tracing-switch.js';
import { createWorker, type CommonplaceWorker, type WorkerSettings } from '../../worker.js';
import { loadWorkflowBundle } from '../../workflow-bundle.js';
import { installedRelease, workflowInterceptorModules, workflowsPath } from '../../workflow-code.js';
import { UserError } from '../shared/errors.js';

/** Directories named now, and a file of directories re-read as it changes. */
export interface HoldOptions {
  kb: string[];
  kbList?: string;
}

/** On the prebuilt bundle when it matches the compiled workflow code; otherwise bundled at start (seconds), saying first why. */
export async function startWorker(
  settings: Omit<WorkerSettings, 'workflowCode'>,
): Promise<{ worker: CommonplaceWorker; bundledMs: number; prebuilt: boolean }> {
  // With traces on (OTEL_EXPORTER_OTLP_ENDPOINT), the workflow code carries the SDK's OpenTelemetry workflow interceptors too: the prebuilt bundle has
  // none, so it is bundled at start. They issue no command, and the code keeps its release.
  const plugins = (await processTracing('commonplace-worker'))?.plugins;
  if (plugins !== undefined) {
    process.stderr.write('traces are on (OTEL_EXPORTER_OTLP_ENDPOINT): bundling the workflow code with the tracing interceptors at start...\n');
    const started = Date.now();
    const bundle = await bundleWorkflowCode({ workflowsPath, workflowInterceptorModules, logger: Runtime.instance().logger, plugins });
    const workflowCode = { bundle, release: await installedRelease() };
    return { worker: await createWorker({ ...settings, workflowCode, plugins }), bundledMs: Date.now() - started, prebuilt: false };
  }
  const loaded = await loadWorkflowBundle({ workflowsPath, workflowInterceptorModules }, (because) =>
    process.stderr.write(`${because}; bundling the workflow code at start...\n`),
  );
  return {
    worker: await createWorker({ ...settings, workflowCode: { bundle: loaded.workflowBundle, release: loaded.release } }),
    bundledMs: loaded.ms,
    prebuilt: loaded.bundledBecause === undefined,
  };
}

/** Each checked and given its ID, or the one-line error naming the directory. */
export async function namedCheckouts(dirs: string[]) {
  const checkouts = [];
  for (const dir of dirs) {
    try {
      const checkout = await checkoutAt(dir);
      checkouts.push(checkout);
    } catch (error) {
      throw new UserError(`--kb ${dir}: ${(error as Error).message.replace(/^--kb [^:]*: /, '')}`);
    }
  }
  return checkouts;
}

/** One directory a line (`#` comments), now and whenever the file changes; a line naming no checkout is said and skipped. */
export function holdListed(worker: CommonplaceWorker, file: string): () => void {
  const seen = new Set<string>();
  let reading = Promise.resolve();
  const read = () => {
    reading = reading.then(async () => {
      const text = await readFile(file, 'utf8').catch(() => '');
      for (const line of text.split('\n').map((entry) => entry.trim())) {
        if (line === '' || line.startsWith('#') || seen.has(line)) continue;
        seen.add(line);
        try {
          const checkout = await checkoutAt(resolve(line));
          await worker.hold(checkout);
          process.stderr.write(`holding checkout ${checkout.id} at ${checkout.root} (task queue ${checkoutQueue(checkout.id)})\n`);
        } catch (error) {
          process.stderr.write(`commonplace: ${file}: ${line}: ${(error as Error).message}\n`);
        }
      }
    });
  };
  read();
  watchFile(file, { interval: 250 }, read);
  return () => unwatchFile(file, read);
}

export function serving(worker: CommonplaceWorker, kbList: string | undefined): string {
  const held = worker.checkouts();
  const list = kbList !== undefined ? `, and the checkouts ${kbList} lists` : '';
  if (held.length === 0 && kbList === undefined) return 'task queue commonplace only: holds no checkout, so it runs launches, not checkout work';
  return `task queue commonplace and ${held.map((checkout) => `${checkoutQueue(checkout.id)} (${checkout.root})`).join(', ') || 'no checkout yet'}${list}`;
}
