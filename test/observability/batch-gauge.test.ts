// `commonplace_batch_requests_pending` end to end: a `--batch` gate sweep on a dev server, started by the real
// CLI (bin/commonplace.js, so `npm run build` first) and run by the worker `commonplace worker --metrics`
// builds, on the test bundle (test/helpers/fault-worker.ts), asks its units as one provider batch at the
// Anthropic stand-in, which holds the batch in progress until the test ends it. The worker's endpoint shows the
// batch's requests pending while it is held, and 0 once they are collected. The file's runs are on a clock ten
// times quicker, so the poll after the batch ends waits 3 s, not the shipped 30 s (proved by
// test/harness/api-batches.test.ts).
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { batchSweep, exampleNotes, KEY_ENV } from '../helpers/batch-sweep.js';
import { startCli } from '../helpers/cli.js';
import { startFaultWorker } from '../helpers/faults.js';
import { waitFor } from '../helpers/fake.js';
import { watchedWorker } from '../helpers/hosts.js';
import { reply } from '../helpers/model-apis/index.js';
import { freePort } from '../helpers/ports.js';
import { scrape, type Sample } from '../helpers/prometheus.js';
import { useDevServer } from '../helpers/servers.js';
import { METRICS } from '../../src/observability/metrics.js';

const { address } = useDevServer({ quickerClock: 10 });

test('the worker shows every request of a held provider batch pending under its provider and profile, and 0 once the batch is collected', async () => {
  const setup = await batchSweep('anthropic', reply.review('pass'));
  // The provider batch stays in progress until the test ends it.
  setup.standIn.batches.endAfterPolls = Infinity;
  const { profile } = setup.input('pair');
  const env = { TEMPORAL_ADDRESS: address(), [KEY_ENV]: 'stand-in-key' };
  const port = await freePort();
  const worker = watchedWorker(
    startFaultWorker(undefined, {
      address: address(),
      state: join(setup.dir, 'state'),
      kb: [setup.checkout],
      metrics: String(port),
      env: { ...process.env, ...env },
    }),
  );
  let sweep: ReturnType<typeof startCli> | undefined;
  try {
    await worker.said(/worker ready/);
    const url = `http://127.0.0.1:${port}/metrics`;
    const gauge = (samples: Sample[]) =>
      samples.filter(
        (sample) => sample.name === METRICS.batchRequestsPending.name && sample.labels.provider === 'anthropic' && sample.labels.profile === profile,
      );
    const seen: Sample[] = [];

    // Started, not awaited: it follows the sweep until the batch is collected, the poll after a durable timer (3 s here).
    sweep = startCli(setup.command([exampleNotes[0]!], {}, '--json'), { env, timeout: 180_000 });
    let held = 0;
    await waitFor(
      'the gauge to show every request of the held provider batch pending',
      async () => {
        held = setup.standIn.batches.list[0]?.requests.length ?? 0;
        const shown = gauge(await scrape(url));
        seen.push(...shown);
        return held > 0 && shown.length === 1 && shown[0]!.value === held;
      },
      120_000,
    );
    expect(setup.standIn.batches.list).toHaveLength(1);
    expect(setup.standIn.batches.list[0]!.status).toBe('in_progress');

    setup.standIn.batches.end(setup.standIn.batches.list[0]!.id);
    const run = await sweep;
    expect({ exitCode: run.exitCode, stderr: run.exitCode === 0 ? '' : String(run.stderr) }).toEqual({ exitCode: 0, stderr: '' });
    const runId = (JSON.parse(String(run.stdout)) as { workflowId: string }).workflowId.split('/').at(-1)!;
    await waitFor(
      'the gauge to show 0 once the batch is collected',
      async () => {
        const shown = gauge(await scrape(url));
        seen.push(...shown);
        return shown.length === 1 && shown[0]!.value === 0;
      },
      60_000,
    );
    expect(setup.standIn.batches.list).toHaveLength(1);

    // Bounded labels: the gauge's own are provider and profile; the SDK's workflow meter adds its namespace,
    // task queue and workflow type. None names a run or a path.
    const sdk = ['namespace', 'task_queue', 'workflow_type'];
    expect([
      ...new Set(
        seen.map((sample) =>
          Object.keys(sample.labels)
            .filter((name) => !sdk.includes(name))
            .sort()
            .join(','),
        ),
      ),
    ]).toEqual([[...METRICS.batchRequestsPending.labels].sort().join(',')]);
    expect(seen.map((sample) => sample.labels.workflow_type)).toEqual(seen.map(() => 'gateBatch'));
    const values = seen.flatMap((sample) => Object.values(sample.labels));
    const bad = values.filter((value) => value.includes(runId) || value.includes('/') || value.includes(tmpdir()) || value.includes(setup.checkout));
    expect(bad).toEqual([]);
  } finally {
    sweep?.kill('SIGINT');
    await sweep;
    worker.process.kill('SIGINT');
    await worker.process;
    await setup.standIn.close();
  }
}, 240_000);
