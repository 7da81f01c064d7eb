import type { SweepInput } from '../../src/review/sweep-types.js';
import { selectPairs } from '../../src/review/status.js';
import { TASK_QUEUE } from '../../src/search-attributes.js';
import { gateSweep } from '../../src/workflows/gate-sweep.js';
import { fakeScenario, scratch } from '../helpers/fake.js';
import { corpusCopy, someNotes } from '../helpers/kb.js';
import { fakeProfilesFile } from '../helpers/probe.js';
import { useDevServerWithCliWorker } from '../helpers/servers.js';
import { uniqueId } from '../helpers/temporal.js';

const { env } = useDevServerWithCliWorker();

// The corpus-scale figure (13,783 pairs) is bench/corpus-sweep.ts; this is the same property, small:
// with its history budgets set low, a sweep continues as new between batches and each batch between
// units, no history grows far past its budget, and every pair is still answered once.
describe('a sweep whose histories pass their budgets', () => {
  const budget = { sweep: 40, batch: 60 };
  let pairs: number;
  let summary: Awaited<ReturnType<typeof sweep>>;
  let runs: { workflowId: string; events: number }[];
  let fresh: boolean;

  async function sweep() {
    const checkout = await corpusCopy();
    const dir = await scratch();
    const { env: fakeEnv } = await fakeScenario(dir, [{ attempts: [{ review: 'pass' }] }]);
    // One note's 41 pairs: with batches of 8 the sweep runs six batches, more than its budget holds.
    const notes = await someNotes(1);
    pairs = (await selectPairs(checkout, { notes, criteria: ['gates'] })).length;
    const runId = uniqueId('GS-budget').replace(/\//g, '-');
    const input: SweepInput = {
      checkout,
      runId,
      notes,
      gates: [],
      criteria: ['gates'],
      grouping: 'pair',
      profile: 'fake',
      concurrency: 4,
      batchSize: 8,
      autoResume: false,
      profilesFile: await fakeProfilesFile(dir, { fake: { harness: 'fake', timeout: '1m' } }),
      env: fakeEnv,
      historyBudget: budget,
    };
    const result = await env().client.workflow.execute(gateSweep, { taskQueue: TASK_QUEUE, workflowId: `gates/${runId}`, args: [input] });
    runs = [];
    for await (const execution of env().client.workflow.list({ query: `WorkflowId STARTS_WITH "gates/${runId}"` }))
      runs.push({ workflowId: execution.workflowId, events: execution.historyLength });
    fresh = (await selectPairs(checkout, { notes, criteria: ['gates'] })).every((pair) => pair.status === 'fresh');
    return result;
  }

  beforeAll(async () => {
    summary = await sweep();
  });

  test('every pair is answered once and is fresh after', () => {
    expect(pairs).toBeGreaterThan(16);
    expect(summary.counts.written.pass).toBe(pairs);
    expect(summary.counts.launches).toBe(pairs);
    expect(fresh).toBe(true);
  });

  test('the sweep continued as new: it ran as more than one execution', () => {
    expect(runs.filter((run) => !run.workflowId.includes('/batch-')).length).toBeGreaterThan(1);
  });

  test('a batch continued as new between its units', () => {
    const batches = runs.filter((run) => run.workflowId.includes('/batch-'));
    expect(batches.length).toBeGreaterThan(new Set(batches.map((run) => run.workflowId)).size);
  });

  test('no history grows far past its budget (a batch finishes its launches in flight first)', () => {
    const sweepRuns = runs.filter((run) => !run.workflowId.includes('/batch-'));
    const batchRuns = runs.filter((run) => run.workflowId.includes('/batch-'));
    expect(Math.max(...sweepRuns.map((run) => run.events))).toBeLessThan(budget.sweep + 40);
    expect(Math.max(...batchRuns.map((run) => run.events))).toBeLessThan(budget.batch + 80);
  });
});
