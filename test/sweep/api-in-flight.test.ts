// A model-API sweep keeps its concurrency of requests in flight on a worker whose --max-launches is smaller:
// its units are asked on the checkout's queue, whose activities `--max-launches` (the shared queue's harness
// launches) does not bound (src/worker.ts, CHECKOUT_QUEUE_ACTIVITIES).
import { join } from 'node:path';
import { batchSweep, KEY_ENV, liveRequests } from '../helpers/batch-sweep.js';
import { startCli } from '../helpers/cli.js';
import { waitFor } from '../helpers/fake.js';
import { startCheckoutWorker, type WorkerProcess } from '../helpers/hosts.js';
import { corpusCopy, someNotes } from '../helpers/kb.js';
import { reply } from '../helpers/model-apis/index.js';
import { useDevServer } from '../helpers/servers.js';
import { gatesCommand } from '../helpers/sweep.js';

const { address } = useDevServer();

test('a live model-API sweep at concurrency 8 holds 8 requests in flight on a worker of --max-launches 2, and completes once they are answered', async () => {
  const setup = await batchSweep('anthropic', reply.review('pass'));
  const held = setup.standIn.hold();
  let worker: WorkerProcess | undefined;
  try {
    // Ten notes' bundles: ten units, each a cache group of its own, so eight lanes each hold a request at concurrency 8.
    const checkout = await corpusCopy();
    worker = startCheckoutWorker(address(), { kb: [checkout], state: join(setup.dir, 'state'), maxLaunches: 2 });
    await worker.said(/^worker ready/m);
    const { profile, profilesFile } = setup.input('bundle');
    const sweep = startCli(
      gatesCommand({ kb: checkout, profile, profiles: profilesFile, gates: 'frontmatter/*', notes: await someNotes(10), grouping: 'bundle', concurrency: 8 }),
      { env: { TEMPORAL_ADDRESS: address(), [KEY_ENV]: 'stand-in-key' } },
    );
    await waitFor('eight requests held at the stand-in at once', async () => held.held() === 8, 180_000);
    held.release();
    const ended = await sweep;
    expect(ended.exitCode).toBe(0);
    expect(String(ended.stdout)).toMatch(/sweep GS-\S+ completed/);
    expect(liveRequests(setup.standIn)).toHaveLength(10);
  } finally {
    held.release();
    worker?.process.kill('SIGINT');
    await worker?.process;
    await setup.standIn.close();
  }
});
