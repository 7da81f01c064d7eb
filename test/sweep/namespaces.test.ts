// Two namespaces on one dev server sweep one checkout: each namespace's sweep has its own run ID and its
// own run directory (docs/temporal.md: run state is kept apart per namespace).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.js';
import { startCheckoutWorker, stateDir, type WorkerProcess } from '../helpers/hosts.js';
import { useDevServer } from '../helpers/servers.js';
import { fakeSweep } from '../helpers/sweep.js';
import { createNamespace } from '../helpers/temporal.js';

const { env, address } = useDevServer();
const other = `kb2-${process.pid}`;

beforeAll(() => createNamespace(env(), address(), other, { searchAttributes: true }), 90_000);

test("two namespaces' sweeps of one checkout, the same command, never share a run ID or a run directory", async () => {
  const { checkout, command } = await fakeSweep([{ attempts: [{ review: 'pass' }] }]);
  const namespaces = [env().namespace ?? 'default', other];
  const workers: WorkerProcess[] = [];
  try {
    for (const namespace of namespaces) workers.push(startCheckoutWorker(address(), { kb: [checkout], state: await stateDir(), namespace }));
    for (const worker of workers) await worker.said(/^worker ready/m);
    const sweep = (namespace: string) => runCli(command(), { env: { TEMPORAL_ADDRESS: address(), TEMPORAL_NAMESPACE: namespace, npm_command: '' } });
    const runs = await Promise.all(namespaces.map(sweep));
    for (const run of runs) expect({ exitCode: run.exitCode, stderr: String(run.stderr) }).toMatchObject({ exitCode: 0 });
    const runIds = runs.map((run) => /sweep (GS-\S+) completed/.exec(String(run.stdout))?.[1]);
    expect(runIds.every((id) => id !== undefined)).toBe(true);
    expect(runIds[0]).not.toBe(runIds[1]);
    for (const runId of runIds) expect(existsSync(join(checkout, 'kb', 'reports', 'state', 'review', 'runs', runId!))).toBe(true);
    // Each namespace holds its own sweep, and not the other's.
    for (const [index, namespace] of namespaces.entries()) {
      const { count } = await env().client.workflowService.countWorkflowExecutions({ namespace, query: `WorkflowId = "gates/${runIds[1 - index]!}"` });
      expect(Number(count)).toBe(0);
      await expect(
        env().client.workflowService.describeWorkflowExecution({ namespace, execution: { workflowId: `gates/${runIds[index]!}` } }),
      ).resolves.toBeDefined();
    }
  } finally {
    for (const worker of workers) worker.process.kill('SIGINT');
    await Promise.all(workers.map((worker) => worker.process));
  }
}, 240_000);
