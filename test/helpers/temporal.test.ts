// The time-skipping fixture's clean-up ends every open workflow, however many pages the server's list takes.
// On a dev server: the time-skipping server answers the open list in one page whatever size is asked.
import { waitFor } from './fake.js';
import { useDevServer } from './servers.js';
import { endOpenWorkflows, uniqueId } from './temporal.js';

const { env } = useDevServer();

test('endOpenWorkflows terminates every open workflow, over several pages of the open list', async () => {
  // No worker polls this queue: the runs stay open until something ends them.
  const queue = uniqueId('no-worker');
  const handles = await Promise.all(
    Array.from({ length: 5 }, () => env().client.workflow.start('probe', { taskQueue: queue, workflowId: uniqueId('open'), args: [] })),
  );
  // The list is the server's visibility, which may trail the starts.
  await waitFor(
    'the five runs to be listed open',
    async () => (await env().client.workflow.count(`TaskQueue = "${queue}" AND ExecutionStatus = "Running"`)).count === 5,
    60_000,
  );
  await endOpenWorkflows(env(), 2);
  const statuses = await Promise.all(handles.map(async (handle) => (await handle.describe()).status.name));
  expect(statuses).toEqual(['TERMINATED', 'TERMINATED', 'TERMINATED', 'TERMINATED', 'TERMINATED']);
});
