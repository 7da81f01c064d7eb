// bench/sweep-throughput: pairs per second of a gate sweep on a dev server with the instant fake
// harness, at concurrency 1, 4 and 16 (pair grouping), and the history events each pair costs.
// Usage: npx tsx bench/sweep-throughput.ts [notes=6] [bundle]
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { selectPairs } from '../src/review/status.js';
import type { Grouping, SweepInput, SweepSummary } from '../src/review/sweep-types.js';
import { TASK_QUEUE } from '../src/search-attributes.js';
import { fakeScenario, scratch } from '../test/helpers/fake.js';
import { corpusCopy, someNotes } from '../test/helpers/kb.js';
import { fakeProfilesFile } from '../test/helpers/probe.js';
import { startDevEnvironment, testWorker } from '../test/helpers/temporal.js';
import { sweepHistory } from './sweep-history.js';

const noteCount = Number(process.argv[2] ?? 6);
const grouping: Grouping = process.argv[3] === 'bundle' ? 'bundle' : 'pair';
const env = await startDevEnvironment();
const checkout = await corpusCopy();
const dir = await scratch();
const { env: fakeEnv } = await fakeScenario(dir, [{ attempts: [{ review: 'pass' }] }]);
const profilesFile = await fakeProfilesFile(dir, { fake: { harness: 'fake', timeout: '1m' } });
const notes = await someNotes(noteCount);
const pairs = (await selectPairs(checkout, { notes })).length;
console.log(`sweep throughput: ${pairs} pairs (${noteCount} notes × all applicable gates), ${grouping} grouping, instant fake harness`);

for (const concurrency of [1, 4, 16]) {
  await rm(join(checkout, 'kb', 'reports'), { recursive: true, force: true });
  const runId = `GS-bench-${grouping}-${concurrency}`;
  const input: SweepInput = {
    checkout,
    runId,
    notes,
    gates: [],
    grouping,
    profile: 'fake',
    concurrency,
    batchSize: 100,
    autoResume: false,
    profilesFile,
    env: fakeEnv,
  };
  const worker = await testWorker(env, { stateDir: join(dir, 'state') });
  const started = performance.now();
  const summary = (await worker.runUntil(
    env.client.workflow.execute('gateSweep', { taskQueue: TASK_QUEUE, workflowId: `gates/${runId}`, args: [input] }),
  )) as SweepSummary;
  const seconds = (performance.now() - started) / 1000;
  const { events, runs } = await sweepHistory(env.client, runId);
  console.log(
    `concurrency ${String(concurrency).padStart(2)}: ${summary.counts.pairsDone} pairs in ${seconds.toFixed(1)} s = ${(summary.counts.pairsDone / seconds).toFixed(2)} pairs/s; ` +
      `${summary.counts.launches} launches; ${events} events in ${runs} workflow runs = ${(events / summary.counts.pairsDone).toFixed(1)} events/pair`,
  );
}
await env.teardown();
