import { join } from 'node:path';
import { selectPairs } from '../../src/review/status.js';
import type { SweepInput, SweepSummary } from '../../src/review/sweep-types.js';
import { TASK_QUEUE } from '../../src/search-attributes.js';
import { fakeScenario, scratch } from '../helpers/fake.js';
import { corpusCopy } from '../helpers/kb.js';
import { fakeProfilesFile } from '../helpers/probe.js';
import { testWorker } from '../helpers/temporal.js';
import { useDevServer } from '../helpers/servers.js';

const { env } = useDevServer();

test('a sweep of every applicable pair of the corpus (fake harness writing instantly) completes with every history under 10,000 events', async () => {
  const checkout = await corpusCopy();
  const dir = await scratch();
  const { env: fakeEnv } = await fakeScenario(dir, [{ attempts: [{ review: 'pass' }] }]);
  const profilesFile = await fakeProfilesFile(dir, { fake: { harness: 'fake', timeout: '1m' } });
  const pairs = await selectPairs(checkout);
  expect(pairs.length).toBeGreaterThan(10_000);
  const input: SweepInput = {
    checkout,
    runId: 'GS-corpus-scale',
    notes: [],
    gates: [],
    grouping: 'bundle',
    profile: 'fake',
    concurrency: 16,
    batchSize: 100,
    autoResume: false,
    profilesFile,
    env: fakeEnv,
  };
  const worker = await testWorker(env(), { stateDir: join(dir, 'state') });
  const summary = (await worker.runUntil(
    env().client.workflow.execute('gateSweep', { taskQueue: TASK_QUEUE, workflowId: 'gates/GS-corpus-scale', args: [input] }),
  )) as SweepSummary;
  expect(summary.pairs).toBe(pairs.length);
  expect(summary.counts.written.pass).toBe(pairs.length);
  expect(summary.counts.problems).toBe(0);
  expect((await selectPairs(checkout)).every((pair) => pair.status === 'fresh')).toBe(true);

  const lengths: Record<string, number> = {};
  for await (const execution of env().client.workflow.list({ query: 'WorkflowId STARTS_WITH "gates/GS-corpus-scale"' })) {
    lengths[`${execution.workflowId} ${execution.runId}`] = execution.historyLength;
  }
  expect(Object.keys(lengths).length).toBeGreaterThan(summary.batches); // the sweep and one child per batch, at least
  expect(Math.max(...Object.values(lengths))).toBeLessThan(10_000);
  console.log(`corpus sweep: ${pairs.length} pairs, ${summary.units} launches, ${Object.keys(lengths).length} workflow runs, longest history ${Math.max(...Object.values(lengths))} events`);
}, 900_000);
