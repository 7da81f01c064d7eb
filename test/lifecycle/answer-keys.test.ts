import { useDevServerWithCliWorker } from '../helpers/servers.js';
import { executeSweep, fakeSweep } from '../helpers/sweep.js';

const server = useDevServerWithCliWorker();
const env = () => server.env();

test('a sweep never launches a re-ask whose prompt and inputs equal an answered one: a reviewer that repeats its mistake is launched twice, not three times', async () => {
  const sweep = await fakeSweep([{ attempts: [{ outputs: { 'review.md': 'The note reads well.\n\nno result line\n' } }] }], {
    gates: ['frontmatter/description-discrimination'],
  });
  const summary = await executeSweep(env(), sweep.input({ batchSize: 5 }));
  expect(summary.status).toBe('exhausted');
  expect(summary.problems.map((problem) => problem.criterion)).toEqual(['frontmatter/description-discrimination']);
  expect(summary.problems[0]?.reason).toMatch(/^attempt budget \(3\) spent: /);
  const starts = await sweep.starts();
  expect(starts).toHaveLength(2);
  expect(new Set(starts.map((entry) => entry.promptSha256)).size).toBe(2);
  expect(summary.counts.launches).toBe(2);
});
