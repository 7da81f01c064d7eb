// `--batch` sweeps whose worker dies or stops: a worker killed outright after submitting or after
// collecting (a worker process with a fault, test/helpers/fault-worker.ts), and a batch
// that ends while no worker runs. A real dev server (a dead worker's sticky queue and heartbeats time
// out there as in production), the stand-ins' provider batches counting every request per custom_id.
import { join } from 'node:path';
import type { SweepSummary } from '../../src/review/sweep-types.js';
import { batchSweep, exampleNotes, expectOneProviderBatch, KEY_ENV } from '../helpers/batch-sweep.js';
import { waitFor } from '../helpers/fake.js';
import { startFaultWorker, type Fault } from '../helpers/faults.js';
import { reply } from '../helpers/model-apis/index.js';
import { scaledClockMemo } from '../helpers/scaled-clock.js';
import { useDevServerRooms } from '../helpers/servers.js';
import { startSweep } from '../helpers/sweep.js';
import { testWorker } from '../helpers/temporal.js';

// Each test runs in a namespace of its own, all at once: most of a test is waiting for the server to notice a death.
const { room } = useDevServerRooms();

/**
 * A dead worker is noticed by its heartbeat timeout (the batch activities' 30 s), its activity retried after 10 s,
 * and the batch's first poll wait is 30 s. The kill and the server are real; only those waits shrink: each run
 * asks for a clock a tenth of the shipped one (test/helpers/scaled-clock.ts), its gate batches inheriting it.
 * The shipped poll back-off is proved on the time-skipping server by test/harness/api-batches.test.ts.
 */
const quick = { memo: scaledClockMemo(0.1) };

/** The sweep completed without problems on the one provider batch, no request sent twice nor asked live, every note's results fresh and valid. */
async function expectFinishedOnce(setup: Awaited<ReturnType<typeof batchSweep>>, summary: SweepSummary, notes: string[]): Promise<void> {
  expect(summary.status).toBe('completed');
  expect(summary.counts.problems).toBe(0);
  await expectOneProviderBatch(setup, notes);
}

test.concurrent.each(['anthropic', 'openai'] as const)(
  'a %s provider batch that ended while no worker ran is collected when a worker comes back, nothing submitted twice',
  async (api) => {
    const { env } = await room();
    const setup = await batchSweep(api, reply.review('pass'));
    try {
      setup.standIn.batches.endAfterPolls = Number.POSITIVE_INFINITY;
      const input = { ...setup.input('pair'), notes: [exampleNotes[1]!] };
      const first = await testWorker(env, { stateDir: join(setup.dir, 'state') });
      const handle = await first.runUntil(async () => {
        const started = await startSweep(env, input, quick);
        await waitFor('the provider batch to be submitted and polled', async () => (setup.standIn.batches.list[0]?.polls ?? 0) > 0, 60_000);
        return started;
      });
      // No worker runs now: the provider finishes the batch.
      setup.standIn.batches.end(setup.standIn.batches.list[0]!.id);
      const second = await testWorker(env, { stateDir: join(setup.dir, 'state') });
      await expectFinishedOnce(setup, (await second.runUntil(handle.result())) as SweepSummary, input.notes);
    } finally {
      await setup.standIn.close();
    }
  },
);

/** Where the first worker dies: the provider accepted the batch and its ID is recorded nowhere; or the answers are written and not yet reported. */
const killed: Record<'submit' | 'collect', Fault> = { submit: { do: 'kill', at: 'batch-created' }, collect: { do: 'kill', at: 'after collectProviderBatch' } };

// At the file's top level, all four at once (jest runs a describe block's concurrent tests together, block after block).
test.concurrent.each([
  ['anthropic', 'submit'],
  ['anthropic', 'collect'],
  ['openai', 'submit'],
  ['openai', 'collect'],
] as const)(
  'a %s sweep whose worker is killed after the batch %s, the next worker finishes the sweep and no request is submitted twice',
  async (api, point) => {
    const { env, address, namespace } = await room();
    const setup = await batchSweep(api, reply.review('pass'));
    const input = { ...setup.input('pair'), notes: [exampleNotes[0]!] };
    const state = join(setup.dir, 'state');
    const first = startFaultWorker(killed[point], { address, namespace, state, env: { [KEY_ENV]: 'stand-in-key' } });
    try {
      const handle = await startSweep(env, input, quick);
      expect((await first).signal).toBe('SIGKILL');
      expect(setup.standIn.batches.list).toHaveLength(1);
      const second = await testWorker(env, { stateDir: state });
      await expectFinishedOnce(setup, (await second.runUntil(handle.result())) as SweepSummary, input.notes);
    } finally {
      first.kill('SIGKILL');
      await setup.standIn.close();
    }
  },
);
