/**
 * The stop matrix's server row on the model-API routes: a dev server killed (SIGKILL) and started again on its
 * database while a model-API sweep has asks in flight — live requests held at the stand-in, or a provider batch
 * held at the provider — and a `commonplace worker` process serving it throughout. The sweep completes, no ask
 * answered before is asked again (counted at the stand-in: every live request, and every request of every
 * provider batch), and every pair has its result. The CLI route's server restart is test/sweep/server-restart.test.ts.
 */
import { Client, Connection } from '@temporalio/client';
import { createServer } from 'node:net';
import { join } from 'node:path';
import type { SweepInput, SweepSummary } from '../../src/review/sweep-types.js';
import { TASK_QUEUE } from '../../src/search-attributes.js';
import { startDevServer } from '../../temporal/server.js';
import { batchSweep, KEY_ENV, sentTwice, staleAndInvalid } from '../helpers/batch-sweep.js';
import { startCli } from '../helpers/cli.js';
import { scratch, waitFor } from '../helpers/fake.js';
import { reply } from '../helpers/model-apis/index.js';
import { freePort } from '../helpers/ports.js';
import { testReleaseStamp } from '../helpers/temporal.js';
import { askedAgain, standInAsks } from './stop-matrix.js';

/** Whether a port can be listened on again (a killed server's sockets are gone). */
const portFree = (port: number) =>
  new Promise<boolean>((answer) => {
    const probe = createServer();
    probe.once('error', () => answer(false));
    probe.listen({ host: '127.0.0.1', port, exclusive: true }, () => probe.close(() => answer(true)));
  });

/** A client as the CLI's: its runs carry a release (the test bundle's). */
const connect = async (address: string) => new Client({ connection: await Connection.connect({ address }), interceptors: testReleaseStamp });

test.each([
  ['live', 'never'],
  ['provider batch', 'always'],
] as const)(
  'a model-API sweep (%s) whose server is killed and restarted with asks in flight asks no answered unit again and writes every result',
  async (_route, batch) => {
    const setup = await batchSweep('anthropic', reply.review('pass'));
    const state = await scratch();
    const dbFile = join(state, 'temporal.db');
    const [port, uiPort] = [await freePort(), await freePort()];
    let server = await startDevServer({ dbFile, port, uiPort });
    const address = server.address;
    const worker = startCli(['worker', '--kb', setup.checkout, '--state', join(state, 'worker')], {
      env: { TEMPORAL_ADDRESS: address, [KEY_ENV]: 'stand-in-key' },
      all: false,
    });
    try {
      const input: SweepInput = { ...setup.input('pair'), batch, concurrency: 2 };
      const before = await connect(address);
      await before.workflow.start('gateSweep', { taskQueue: TASK_QUEUE, workflowId: `gates/${input.runId}`, args: [input] });
      // In flight at the kill: live, requests held once two were answered; batched, the provider batch held open.
      let release: () => void;
      if (batch === 'never') {
        await waitFor('two answered requests', async () => standInAsks(setup.standIn).filter((ask) => ask.answered).length >= 2, 120_000);
        const held = setup.standIn.hold();
        release = held.release;
        await waitFor('a request held in flight', async () => held.held() >= 1, 120_000);
      } else {
        setup.standIn.batches.endAfterPolls = Number.POSITIVE_INFINITY;
        await waitFor('the provider batch created', async () => setup.standIn.batches.list.length >= 1, 120_000);
        release = () => setup.standIn.batches.end(setup.standIn.batches.list[0]!.id);
      }
      await before.connection.close();
      server.process.kill('SIGKILL');
      await server.process.catch(() => undefined);
      await waitFor("the killed server's ports to be free", async () => (await portFree(port)) && (await portFree(uiPort)), 60_000);
      server = await startDevServer({ dbFile, port, uiPort });
      release();
      const after = await connect(address);
      const summary = (await after.workflow.getHandle(`gates/${input.runId}`).result()) as SweepSummary;
      await after.connection.close();
      expect(summary.status).toBe('completed');
      expect(summary.counts.pairsDone).toBe(summary.pairs);
      expect(askedAgain(standInAsks(setup.standIn))).toEqual([]);
      expect(sentTwice(setup.standIn)).toEqual([]);
      expect(await staleAndInvalid(setup)).toEqual({ stale: [], invalid: [] });
    } finally {
      worker.kill('SIGINT');
      await worker;
      await server.stop();
      await setup.standIn.close();
    }
  },
  600_000,
);
