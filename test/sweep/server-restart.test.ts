// Chaos: the dev server is killed (SIGKILL) mid-sweep and started again on the same database file,
// while `review run gates` follows the sweep and a launch is in flight. The sweep completes, the
// CLI says the server went away, keeps following and exits 0, and no pair is launched twice.
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import { Client as TemporalClient, Connection } from '@temporalio/client';
import { startDevServer, type DevServer } from '../../temporal/server.js';
import { startCli } from '../helpers/cli.js';
import { readLedger, scratch, waitFor } from '../helpers/fake.js';
import { freePort } from '../helpers/ports.js';
import { watchedProcess } from '../helpers/hosts.js';
import { fakeSweep } from '../helpers/sweep.js';

describe('a dev server killed and restarted on its database mid-sweep, with the CLI following', () => {
  type Ended = { exitCode: number | undefined; stdout: string; stderr: string };
  let ended: Ended;
  let pairs: number;
  let starts: Map<string, number>;
  let allFresh: boolean;
  let acceptsPerUnit: number[];
  let stderrAtRestart: string;
  let server: DevServer | undefined;
  let worker: ReturnType<typeof startCli> | undefined;

  beforeAll(async () => {
    const state = await scratch();
    const dbFile = join(state, 'temporal.db');
    const port = await freePort();
    const uiPort = await freePort();
    const address = `127.0.0.1:${port}`;
    server = await startDevServer({ dbFile, port, uiPort });
    // The first launch is held open until the server has been killed and is back.
    const setup = await fakeSweep(
      ({ notes, release }) => [{ match: `note = ${notes[0]}`, attempts: [{ review: 'pass', waitForFile: release }] }, { attempts: [{ review: 'pass' }] }],
      { notes: 2 },
    );
    const { checkout, ledger } = setup;
    worker = startCli(['worker', '--kb', checkout, '--state', join(state, 'worker')], { env: { TEMPORAL_ADDRESS: address } });
    pairs = (await setup.pairs()).length;
    const sweep = watchedProcess(
      startCli(setup.command({ concurrency: 1 }), { env: { TEMPORAL_ADDRESS: address, COMMONPLACE_FAKE_LEDGER: ledger } }),
      'the CLI',
    );
    await waitFor('the first launch to start', async () => (await setup.starts()).length > 0, 120_000);

    server.process.kill('SIGKILL');
    await server.process.catch(() => undefined);
    await sweep.said(/the Temporal server is not answering/);
    stderrAtRestart = sweep.stderr();
    server = await startDevServer({ dbFile, port, uiPort });
    await setup.releaseLaunch();

    const result = await sweep.process;
    ended = { exitCode: result.exitCode, stdout: String(result.stdout), stderr: sweep.stderr() };
    starts = new Map();
    for (const entry of await readLedger(ledger)) {
      if (entry.event !== 'start') continue;
      const key = entry.promptSha256 ?? entry.cwd ?? String(entry.pid);
      starts.set(key, (starts.get(key) ?? 0) + 1);
    }
    allFresh = (await setup.pairs()).every((pair) => pair.status === 'fresh');

    // Each unit's answer accepted once: one acceptUnit scheduled per unit in every batch's history.
    const connection = await Connection.connect({ address });
    const client: Client = new TemporalClient({ connection });
    acceptsPerUnit = [];
    for await (const execution of client.workflow.list({ query: `WorkflowType = "gateBatch"` })) {
      const history = await client.workflow.getHandle(execution.workflowId, execution.runId).fetchHistory();
      const perUnit = new Map<string, number>();
      for (const event of history.events ?? []) {
        const scheduled = event.activityTaskScheduledEventAttributes;
        if (scheduled?.activityType?.name !== 'acceptUnit') continue;
        const id = scheduled.activityId ?? '';
        perUnit.set(id, (perUnit.get(id) ?? 0) + 1);
      }
      acceptsPerUnit.push(...perUnit.values());
    }
    await connection.close();
  }, 600_000);

  afterAll(async () => {
    worker?.kill('SIGINT');
    await worker;
    await server?.stop();
  }, 120_000);

  test('the CLI said the server was not answering and went on following', () => {
    expect(stderrAtRestart).toMatch(/the Temporal server is not answering; still following gates\/GS-/);
  });

  test('the sweep completed and the CLI exited 0', () => {
    expect(ended.stdout).toMatch(/completed/);
    expect(ended.exitCode).toBe(0);
  });

  test('every pair is fresh: nothing lost', () => {
    expect(allFresh).toBe(true);
  });

  test('no unit was launched twice (the ledger) and none was accepted twice (the histories)', () => {
    expect([...starts.values()].every((count) => count === 1)).toBe(true);
    expect([...starts.values()].reduce((a, b) => a + b, 0)).toBe(pairs);
    expect(acceptsPerUnit.length).toBeGreaterThan(0);
    expect(acceptsPerUnit.every((count) => count === 1)).toBe(true);
  });
});
