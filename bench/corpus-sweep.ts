// bench/corpus-sweep: a sweep of every applicable pair of the corpus (13,783 pairs, bundle grouping)
// on a dev server with the instant fake harness; prints the pairs, launches, workflow runs, the
// longest history and the time it took. The property it measures at scale — every history far below
// Temporal's limits, through batch children and continue-as-new — is tested small in
// test/sweep/history-budget.test.ts.
// Usage: npx tsx bench/corpus-sweep.ts
import { join } from 'node:path';
import { selectPairs } from '../src/review/status.js';
import type { SweepInput } from '../src/review/sweep-types.js';
import { TASK_QUEUE } from '../src/search-attributes.js';
import { gateSweep } from '../src/workflows/gate-sweep.js';
import { fakeScenario, scratch } from '../test/helpers/fake.js';
import { corpusCopy } from '../test/helpers/kb.js';
import { fakeProfilesFile } from '../test/helpers/probe.js';
import { startDevEnvironment, testWorker } from '../test/helpers/temporal.js';

const env = await startDevEnvironment();
const checkout = await corpusCopy();
const dir = await scratch();
const { env: fakeEnv } = await fakeScenario(dir, [{ attempts: [{ review: 'pass' }] }]);
const profilesFile = await fakeProfilesFile(dir, { fake: { harness: 'fake', timeout: '1m' } });
const pairs = await selectPairs(checkout, { criteria: ['gates'] });
const input: SweepInput = {
  checkout,
  runId: 'GS-corpus-sweep',
  notes: [],
  gates: [],
  criteria: ['gates'],
  grouping: 'bundle',
  profile: 'fake',
  concurrency: 16,
  batchSize: 100,
  autoResume: false,
  profilesFile,
  env: fakeEnv,
};
const worker = await testWorker(env, { stateDir: join(dir, 'state') });
const started = performance.now();
const summary = await worker.runUntil(env.client.workflow.execute(gateSweep, { taskQueue: TASK_QUEUE, workflowId: 'gates/GS-corpus-sweep', args: [input] }));
const seconds = (performance.now() - started) / 1000;
const lengths: number[] = [];
for await (const execution of env.client.workflow.list({ query: 'WorkflowId STARTS_WITH "gates/GS-corpus-sweep"' })) lengths.push(execution.historyLength);
const fresh = (await selectPairs(checkout, { criteria: ['gates'] })).filter((pair) => pair.status === 'fresh').length;
console.log(
  `corpus sweep: ${pairs.length} pairs, ${summary.counts.written.pass} results written, ${fresh} fresh after, ${summary.units} launches, ` +
    `${lengths.length} workflow runs, longest history ${Math.max(...lengths)} events, ${seconds.toFixed(0)} s (${(pairs.length / seconds).toFixed(1)} pairs/s)`,
);
await env.teardown();
