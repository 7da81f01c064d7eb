// A compare run whose second route is the first's profile batched (`<profile>:pair:batch`): the batched
// route's units go to the stand-in as a provider batch, the live route's one request at a time, and
// both routes' verdicts are kept apart — on a time-skipping server, so the batch's polls pass.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { compareRunDir } from '../../src/review/compare/run-files.js';
import type { CompareSummary } from '../../src/review/compare/run-types.js';
import { routeFileName, type RouteVerdict } from '../../src/review/compare/types.js';
import { TASK_QUEUE } from '../../src/search-attributes.js';
import { batchSweep, liveRequests, sentTwice } from '../helpers/batch-sweep.js';
import { reply } from '../helpers/model-apis/index.js';
import { useTimeSkippingServer } from '../helpers/servers.js';
import { testWorker, uniqueId } from '../helpers/temporal.js';

const { env } = useTimeSkippingServer();

const verdictsOf = async (checkout: string, runId: string, route: string): Promise<RouteVerdict[]> =>
  (await readFile(join(compareRunDir(checkout, runId), 'verdicts', routeFileName(route)), 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as RouteVerdict);

test("a compare run's :batch route goes as a provider batch, its live twin one request per pair, each route's verdicts apart, nothing submitted twice", async () => {
  const setup = await batchSweep('anthropic', reply.review('warn', ['The description restates the title.']));
  try {
    const sweep = setup.input('pair');
    const live = `${sweep.profile}:pair`;
    const batched = `${sweep.profile}:pair:batch`;
    const runId = uniqueId('CMP').replace(/\//g, '-');
    const worker = await testWorker(env(), { stateDir: join(setup.dir, 'state') });
    const summary = (await worker.runUntil(
      env().client.workflow.execute('compareRun', {
        taskQueue: TASK_QUEUE,
        workflowId: `compare/${runId}`,
        args: [
          {
            checkout: setup.checkout,
            runId,
            profilesFile: sweep.profilesFile,
            routes: [live, batched],
            size: 6,
            seed: 3,
            perCriterionMin: 1,
            criteria: ['frontmatter/*'],
            notes: [],
            concurrency: 2,
          },
        ],
      }),
    )) as CompareSummary;
    expect(summary.status).toBe('completed');
    const liveVerdicts = await verdictsOf(setup.checkout, runId, live);
    const batchVerdicts = await verdictsOf(setup.checkout, runId, batched);
    expect(liveVerdicts).toHaveLength(6);
    expect(batchVerdicts.map((verdict) => `${verdict.note} ${verdict.criterion}`).sort()).toEqual(
      liveVerdicts.map((verdict) => `${verdict.note} ${verdict.criterion}`).sort(),
    );
    // The live route's pairs were asked one request each; the batched route's went in a batch, each once.
    expect(liveRequests(setup.standIn)).toHaveLength(6);
    expect([...setup.standIn.batches.submitted.values()].reduce((sum, times) => sum + times, 0)).toBe(6);
    expect(sentTwice(setup.standIn)).toEqual([]);
  } finally {
    await setup.standIn.close();
  }
});
