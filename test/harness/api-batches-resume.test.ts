// A `--batch` sweep whose provider batch ends while no worker runs: the next worker collects it. A real
// dev server (the stopped worker's sticky queue times out there as in production), the stand-ins'
// provider batches, in-process workers started one after the other.
import { join } from 'node:path';
import type { SweepSummary } from '../../src/review/sweep-types.js';
import { TASK_QUEUE } from '../../src/search-attributes.js';
import { batchSweep, exampleNotes, liveRequests, sentTwice, staleAndInvalid } from '../helpers/batch-sweep.js';
import { waitFor } from '../helpers/fake.js';
import { reply, type StandIn } from '../helpers/model-apis/index.js';
import { useDevServer } from '../helpers/servers.js';
import { testWorker } from '../helpers/temporal.js';

const { env } = useDevServer();

let standIns: StandIn[] = [];
afterEach(async () => {
  await Promise.all(standIns.map((standIn) => standIn.close()));
  standIns = [];
});

test.each(['anthropic', 'openai'] as const)('a %s provider batch that ended while no worker ran is collected when a worker comes back, nothing submitted twice', async (api) => {
  const setup = await batchSweep(api, reply.review('pass'));
  standIns.push(setup.standIn);
  setup.standIn.batches.endAfterPolls = Number.POSITIVE_INFINITY;
  const input = { ...setup.input('pair'), notes: [exampleNotes[1]!] };
  const first = await testWorker(env(), { stateDir: join(setup.dir, 'state') });
  const handle = await first.runUntil(async () => {
    const started = await env().client.workflow.start('gateSweep', { taskQueue: TASK_QUEUE, workflowId: `gates/${input.runId}`, args: [input] });
    await waitFor('the provider batch to be submitted and polled', async () => (setup.standIn.batches.list[0]?.polls ?? 0) > 0, 60_000);
    return started;
  });
  // No worker runs now: the provider finishes the batch.
  setup.standIn.batches.end(setup.standIn.batches.list[0]!.id);
  const second = await testWorker(env(), { stateDir: join(setup.dir, 'state') });
  const summary = (await second.runUntil(handle.result())) as SweepSummary;
  expect(summary.status).toBe('completed');
  expect(summary.counts.problems).toBe(0);
  expect(setup.standIn.batches.list).toHaveLength(1);
  expect(sentTwice(setup.standIn)).toEqual([]);
  expect(liveRequests(setup.standIn)).toEqual([]);
  expect(await staleAndInvalid(setup, input.notes)).toEqual({ stale: [], invalid: [] });
});

