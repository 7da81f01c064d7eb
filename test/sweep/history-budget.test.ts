import { useDevServerWithCliWorker } from '../helpers/servers.js';
import { executeSweep, fakeSweep } from '../helpers/sweep.js';

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
    // One note's 41 pairs: with batches of 8 the sweep runs six batches, more than its budget holds.
    const setup = await fakeSweep([{ attempts: [{ review: 'pass' }] }], { gates: [] });
    pairs = (await setup.pairs()).length;
    const input = setup.input({ concurrency: 4, batchSize: 8, historyBudget: budget });
    const result = await executeSweep(env(), input);
    runs = [];
    for await (const execution of env().client.workflow.list({ query: `WorkflowId STARTS_WITH "gates/${input.runId}"` }))
      runs.push({ workflowId: execution.workflowId, events: execution.historyLength });
    fresh = (await setup.pairs()).every((pair) => pair.status === 'fresh');
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
