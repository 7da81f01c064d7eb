import { resultPath } from '../../src/review/paths.js';
import { type FakeAttempt } from '../helpers/fake.js';
import { useDevServerWithCliWorker } from '../helpers/servers.js';
import { executeSweep, fakeSweep } from '../helpers/sweep.js';
import { access } from 'node:fs/promises';
import { join } from 'node:path';

const server = useDevServerWithCliWorker();
const env = () => server.env();

const GATE = 'frontmatter/description-discrimination';

/** Sweeps one pair whose reviewer always writes `attempt`'s output; returns the summary and whether a result file exists. */
async function sweepOnePair(attempt: FakeAttempt, profile: Record<string, unknown> = {}) {
  const { checkout, notes, input } = await fakeSweep([{ attempts: [attempt] }], {
    gates: [GATE],
    profiles: { fake: { harness: 'fake', timeout: '1m', attempts: 2, ...profile } },
  });
  const summary = await executeSweep(env(), input({ batchSize: 5 }));
  const written = await access(join(checkout, resultPath(notes[0]!, GATE))).then(
    () => true,
    () => false,
  );
  return { summary, written };
}

test('a review holding a NUL byte before `Result: pass` is refused: the pair becomes a problem and no result file is written', async () => {
  const { summary, written } = await sweepOnePair({ outputs: { 'review.md': 'noise\u0000noise\n\nResult: pass\n' } });
  expect(summary.problems[0]?.findings?.[0]).toMatchObject({ rule: 'output-binary', criterion: GATE });
  expect(written).toBe(false);
});

test("a review over the profile's output cap is refused: the pair becomes a problem and no result file is written", async () => {
  const { summary, written } = await sweepOnePair({ outputs: { 'review.md': `${'A long review. '.repeat(100)}\n\nResult: pass\n` } }, { 'max-output': 200 });
  expect(summary.problems[0]?.findings?.[0]).toMatchObject({ rule: 'output-too-large', criterion: GATE });
  expect(written).toBe(false);
});

test('a review ending `Result: pass` then `Result: fail` is refused, not read as fail', async () => {
  const { summary, written } = await sweepOnePair({ outputs: { 'review.md': 'Fine.\nResult: pass\nOn second thought.\nResult: fail\n' } });
  expect(summary.problems[0]?.findings?.[0]).toMatchObject({ rule: 'result-line', message: expect.stringContaining('2 result lines') });
  expect(written).toBe(false);
});

test("a review within the bounds ending in one result line is written as the pair's result file", async () => {
  const { summary, written } = await sweepOnePair({ outputs: { 'review.md': 'The description tells this note apart.\n\nResult: pass\n' } });
  expect(summary.problems).toEqual([]);
  expect(written).toBe(true);
});
