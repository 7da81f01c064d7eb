// `commonplace review run gates --batch` end to end: the real CLI (bin/commonplace.js, so `npm run build` first)
// and the worker `commonplace worker` builds (on the test bundle) on a dev server, a model-API profile pointed at
// the Anthropic stand-in, whose provider batch ends after it was polled twice. The file's runs are on a clock ten
// times quicker (test/helpers/scaled-clock.ts), so the provider batch's 30 s poll timer takes 3 s; the shipped
// interval is proved by test/harness/api-batches.test.ts.
import { runCli } from '../helpers/cli.js';
import { exampleNotes, expectOneProviderBatch, KEY_ENV, modelApiSweep, type Api } from '../helpers/batch-sweep.js';
import { reply, standInKey, useStandIns, type Reply } from '../helpers/model-apis/index.js';
import { useDevServerWithCliWorker } from '../helpers/servers.js';

// The worker this file starts reads the profile's key from its environment.
standInKey(KEY_ENV);
const { address } = useDevServerWithCliWorker({ quickerClock: 10 });
const closing = useStandIns();
const batchSweep = (api: Api, ...replies: Reply[]) => modelApiSweep(api, replies, { batch: 'always', start: closing });
const cli = (args: string[]) => runCli(args, { env: { TEMPORAL_ADDRESS: address() } });

test("review run gates --batch asks the selection as one provider batch, follows it with the provider's counts and exits 0 with every pair fresh", async () => {
  const setup = await batchSweep('anthropic', reply.review('warn', ['The description restates the title.']));
  const notes = [exampleNotes[0]!];
  const run = await cli(setup.command(notes));
  expect(run.exitCode).toBe(0);
  // While the batch waits, the follow line shows the provider's counts.
  expect(run.stderr).toMatch(/provider batch: \d+ processing, 0 succeeded, 0 errored, 0 expired/);
  expect(run.stdout).toMatch(/sweep GS-\S+ completed/);
  await expectOneProviderBatch(setup, notes);
});

test('the same review run gates --batch command started twice at once is one sweep: one provider batch, no request submitted twice', async () => {
  const setup = await batchSweep('openai', reply.review('warn', ['One sentence says two things.']));
  const notes = [exampleNotes[1]!];
  const args = setup.command(notes, { grouping: 'bundle' });
  const runs = await Promise.all([cli(args), cli(args)]);
  expect(runs.map((run) => run.exitCode)).toEqual([0, 0]);
  const ids = runs.map((run) => /sweep (GS-\S+) completed/.exec(String(run.stdout))?.[1]);
  expect(ids[0]).toBeDefined();
  expect(ids[1]).toBe(ids[0]);
  await expectOneProviderBatch(setup, notes);
});
