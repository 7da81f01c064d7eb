// A provider-batch sweep whose gate batch is over its history budget from its first event: the units the provider
// batch answered settle in the first execution (their judging is in its history already), and of the units asked
// live every execution starts one at least, so each one that continues as new hands on fewer units than it
// received, and the sweep completes — the loop where a batch continued with every unit it got, forever, cannot come
// back. The provider batch is submitted once, its answers recorded in the run's answers.
import type { WorkflowExecutionInfo } from '@temporalio/client';
import type { SweepInput, SweepUnit } from '../../src/review/sweep-types.js';
import { batchSweep, completedSweep, sentTwice, staleAndInvalid } from '../helpers/batch-sweep.js';
import { reply } from '../helpers/model-apis/index.js';
import { useDevServer } from '../helpers/servers.js';

const { env } = useDevServer();

test('a provider-batch gate batch over its history budget at once settles its batch answers, continues as new with fewer live units each time, and completes with one provider batch', async () => {
  // The first three requests of the batch come back malformed: their units are asked live, under the budget.
  const setup = await batchSweep('anthropic', reply.malformedReview(), reply.malformedReview(), reply.malformedReview(), reply.review('pass'));
  try {
    // The batch ends at its first poll: no timer to wait on.
    setup.standIn.batches.endAfterPolls = 1;
    const input: SweepInput = { ...setup.input('pair'), batchSize: 100, historyBudget: { batch: 1 } };
    const summary = await completedSweep(env(), setup, input);
    expect(summary.status).toBe('completed');
    expect(summary.counts.pairsDone).toBe(summary.pairs);

    const executions: WorkflowExecutionInfo[] = [];
    for await (const execution of env().client.workflow.list({ query: `WorkflowId = "gates/${input.runId}/batch-1"` })) executions.push(execution);
    executions.sort((a, b) => a.startTime.getTime() - b.startTime.getTime());
    // The first execution settles every unit but the three live ones; each later one at least one of those.
    expect(executions.length).toBeGreaterThan(1);
    expect(executions.length).toBeLessThanOrEqual(4);
    // What each execution received: the first reads its batch file (all units), each continuation the units handed on.
    const received: number[] = [];
    for (const execution of executions) {
      const history = await env().client.workflow.getHandle(execution.workflowId, execution.runId).fetchHistory();
      const data = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0]?.data;
      const batchInput = JSON.parse(Buffer.from(data!).toString('utf8')) as { units?: SweepUnit[] };
      received.push(batchInput.units?.length ?? summary.units);
    }
    for (let index = 1; index < received.length; index += 1) expect(received[index]).toBeLessThan(received[index - 1]!);

    expect(setup.standIn.batches.list).toHaveLength(1);
    expect(sentTwice(setup.standIn)).toEqual([]);
    expect(await staleAndInvalid(setup)).toEqual({ stale: [], invalid: [] });
  } finally {
    await setup.standIn.close();
  }
});
