import type { SweepInput } from '../../src/review/sweep-types.js';
import { TASK_QUEUE } from '../../src/search-attributes.js';
import { gateSweep } from '../../src/workflows/gate-sweep.js';
import { fakeScenario, readLedger, scratch } from '../helpers/fake.js';
import { corpusCopy, someNotes } from '../helpers/kb.js';
import { fakeProfilesFile } from '../helpers/probe.js';
import { useDevServerWithCliWorker } from '../helpers/servers.js';
import { uniqueId } from '../helpers/temporal.js';

const server = useDevServerWithCliWorker();
const env = () => server.env();

test('a sweep never launches a re-ask whose prompt and inputs equal an answered one: a reviewer that repeats its mistake is launched twice, not three times', async () => {
  const checkout = await corpusCopy();
  const dir = await scratch();
  const { env: fakeEnv, ledger } = await fakeScenario(dir, [{ attempts: [{ outputs: { 'review.md': 'The note reads well.\n\nno result line\n' } }] }]);
  const runId = uniqueId('GS').replace(/\//g, '-');
  const input: SweepInput = {
    checkout,
    runId,
    notes: await someNotes(1),
    gates: ['frontmatter/description-discrimination'],
    criteria: ['gates'],
    grouping: 'pair',
    profile: 'fake',
    concurrency: 1,
    batchSize: 5,
    autoResume: false,
    profilesFile: await fakeProfilesFile(dir, { fake: { harness: 'fake', timeout: '1m', attempts: 3 } }),
    env: fakeEnv,
  };
  const summary = await env().client.workflow.execute(gateSweep, { taskQueue: TASK_QUEUE, workflowId: `gates/${runId}`, args: [input] });
  expect(summary.status).toBe('exhausted');
  expect(summary.problems.map((problem) => problem.criterion)).toEqual(['frontmatter/description-discrimination']);
  expect(summary.problems[0]?.reason).toMatch(/^attempt budget \(3\) spent: /);
  const starts = (await readLedger(ledger)).filter((entry) => entry.event === 'start');
  expect(starts).toHaveLength(2);
  expect(new Set(starts.map((entry) => entry.promptSha256)).size).toBe(2);
  expect(summary.counts.launches).toBe(2);
});
