// bench/sweep-workers: a gate sweep's throughput with one worker (holding the checkout) and with two (the
// second launch-only: its own state directory, no checkout), on a dev server, the fake harness taking a
// fixed time per launch. Each worker runs at most `launches` activities at once and the sweep asks twice
// that many pairs at once, so one worker is the bound and a second one shows in pairs/s.
// Prints pairs/s, launches per worker (counted as the launch directories each worker's state holds —
// both in-process workers have the SDK's default identity, pid@hostname, so histories cannot tell them
// apart) and history events per pair.
// Usage: npx tsx bench/sweep-workers.ts [notes=8] [launch-ms=1000] [launches=4]
import { NativeConnection } from '@temporalio/worker';
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { checkoutRoot } from '../src/checkout/index.js';
import { selectPairs } from '../src/review/status.js';
import type { SweepInput, SweepSummary } from '../src/review/sweep-types.js';
import { TASK_QUEUE } from '../src/search-attributes.js';
import { checkoutsAt, type CommonplaceWorker } from '../src/worker.js';
import { fakeScenario, scratch } from '../test/helpers/fake.js';
import { checkoutIdOf, corpusCopy, someNotes } from '../test/helpers/kb.js';
import { fakeProfilesFile } from '../test/helpers/probe.js';
import { startDevEnvironment, testWorker } from '../test/helpers/temporal.js';
import { sweepHistory } from './sweep-history.js';

const noteCount = Number(process.argv[2] ?? 8);
const launchMs = Number(process.argv[3] ?? 1000);
const launches = Number(process.argv[4] ?? 4);
const gates = ['frontmatter/*'];

const env = await startDevEnvironment();
const checkout = await corpusCopy();
const dir = await scratch();
const { env: fakeEnv } = await fakeScenario(dir, [{ attempts: [{ review: 'pass', delayMs: launchMs }] }]);
const profilesFile = await fakeProfilesFile(dir, { fake: { harness: 'fake', timeout: '1m' } });
const notes = await someNotes(noteCount);
const pairs = (await selectPairs(checkout, { notes, gates, criteria: ['gates'] })).length;
const concurrency = 2 * launches;
console.log(
  `sweep workers: ${pairs} pairs (${noteCount} notes × ${gates.join(' ')}), pair grouping, concurrency ${concurrency}, ` +
    `fake harness ${launchMs} ms per launch, up to ${launches} activities at once per worker`,
);

/** The launch directories a worker's state holds: `<state>/review/<run>/<unit>/attempt-N`, one per launch it ran. */
async function launchDirs(state: string, runId: string): Promise<number> {
  const entries = await readdir(join(state, 'review', runId), { recursive: true }).catch(() => [] as string[]);
  return entries.filter((entry) => /(^|\/)attempt-\d+$/.test(entry)).length;
}

for (const workerCount of [1, 2]) {
  await rm(join(checkout, 'kb', 'reports'), { recursive: true, force: true });
  const runId = `GS-bench-workers-${workerCount}`;
  const input: SweepInput = {
    checkout: checkoutRoot(checkoutIdOf(checkout)),
    runId,
    notes,
    gates,
    criteria: ['gates'],
    grouping: 'pair',
    profile: 'fake',
    concurrency,
    batchSize: 100,
    autoResume: false,
    profilesFile,
    env: fakeEnv,
  };
  const states = [join(dir, `state-${workerCount}-holder`), join(dir, `state-${workerCount}-launcher`)].slice(0, workerCount);
  // The SDK refuses two workers of one task queue on one connection, as two hosts would never share one: the launch-only worker connects on its own.
  const connections = await Promise.all(states.slice(1).map(() => NativeConnection.connect({ address: env.connection.options.address })));
  const workers: CommonplaceWorker[] = await Promise.all(
    states.map(async (stateDir, index) =>
      testWorker(env, {
        stateDir,
        maxConcurrentActivityTaskExecutions: launches,
        ...(index === 0 ? { checkouts: await checkoutsAt([checkout]) } : { connection: connections[index - 1]! }),
      }),
    ),
  );
  const started = performance.now();
  const sweep = env.client.workflow.execute('gateSweep', { taskQueue: TASK_QUEUE, workflowId: `gates/${runId}`, args: [input] });
  const [summary] = (await Promise.all(workers.map((worker) => worker.runUntil(sweep)))) as SweepSummary[];
  const seconds = (performance.now() - started) / 1000;
  const { events, runs } = await sweepHistory(env.client, runId);
  await Promise.all(connections.map((connection) => connection.close()));
  const perWorker = await Promise.all(states.map((state) => launchDirs(state, runId)));
  const done = summary!.counts.pairsDone;
  console.log(
    `${workerCount} worker${workerCount > 1 ? 's' : ' '}: ${done} pairs in ${seconds.toFixed(1)} s = ${(done / seconds).toFixed(2)} pairs/s; ` +
      `${summary!.counts.launches} launches (${perWorker.map((count, index) => `${index === 0 ? 'checkout worker' : 'launch-only worker'} ${count}`).join(', ')}); ` +
      `${events} events in ${runs} workflow runs = ${(events / done).toFixed(1)} events/pair`,
  );
}
await env.teardown();
