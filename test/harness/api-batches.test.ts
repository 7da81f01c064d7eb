// Gate sweeps asked as provider batches (`--batch`) through both model-API executors: the real batch
// activities, a real Temporal server (time-skipping, so the polls' durable timers pass), and the
// stand-ins' Message Batches and Files + Batches, which count every request submitted per custom_id.
import type { WorkflowHandle } from '@temporalio/client';
import { cp, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { launchCost } from '../../src/harness/prices.js';
import { collectFiles, validateFiles } from '../../src/kb/validate.js';
import { packageRoot } from '../../src/paths.js';
import { selectPairs } from '../../src/review/status.js';
import type { Grouping, SweepInput, SweepProgress, SweepSummary } from '../../src/review/sweep-types.js';
import { TASK_QUEUE } from '../../src/search-attributes.js';
import { scratch, waitFor } from '../helpers/fake.js';
import { announceCheckout } from '../helpers/kb.js';
import { reply, startStandIn, type StandIn } from '../helpers/model-apis/index.js';
import { useTimeSkippingServer } from '../helpers/servers.js';
import { testWorker, uniqueId } from '../helpers/temporal.js';

const { env } = useTimeSkippingServer();

const KEY_ENV = 'COMMONPLACE_TEST_MODEL_API_KEY';
const gates = ['frontmatter/*', 'sentence/*'];
const models = { anthropic: 'claude-haiku-4-5', openai: 'gpt-5-mini' } as const;
type Api = keyof typeof models;
const exampleNotes = ['kb/notes/a-bare-writing-prompt-does-not-determine-its-intended-contribution.md', 'kb/notes/verifiability-gradient.md', 'kb/notes/why-notes-have-types.md'];

let standIns: StandIn[] = [];
beforeAll(() => {
  process.env[KEY_ENV] = 'stand-in-key';
});
afterEach(async () => {
  delete process.env['COMMONPLACE_CHAOS'];
  await Promise.all(standIns.map((standIn) => standIn.close()));
  standIns = [];
});

interface BatchSweep {
  checkout: string;
  standIn: StandIn;
  dir: string;
  input: (grouping: Grouping) => SweepInput;
}

let sweeps = 0;

/** A copy of the example KB, a stand-in of the API, and a profile pointing at it. */
async function batchSweep(api: Api, ...replies: Parameters<StandIn['script']>): Promise<BatchSweep> {
  sweeps += 1;
  const profile = `${api}-batch-${process.pid}-${sweeps}`;
  const standIn = await startStandIn(api, ...replies);
  standIns.push(standIn);
  standIn.cache.minimumTokens = 64;
  const checkout = await scratch('commonplace-example-kb-');
  await cp(join(packageRoot(), 'examples', 'kb'), join(checkout, 'kb'), { recursive: true });
  await announceCheckout(checkout);
  const dir = await scratch();
  const profilesFile = join(dir, 'worker-profiles.yaml');
  const baseUrl = api === 'openai' ? `${standIn.url}/v1` : standIn.url;
  await writeFile(profilesFile, stringify({ profiles: { [profile]: { harness: api, model: models[api], 'base-url': baseUrl, 'api-key-env': KEY_ENV, timeout: '1m', 'max-output-tokens': 1024 } } }));
  const input = (grouping: Grouping): SweepInput => ({ checkout, runId: uniqueId('BATCH').replace(/\//g, '-'), notes: exampleNotes, gates, grouping, profile, concurrency: 2, batchSize: 20, autoResume: false, profilesFile, batch: 'always' });
  return { checkout, standIn, dir, input };
}

const start = (input: SweepInput): Promise<WorkflowHandle> => env().client.workflow.start('gateSweep', { taskQueue: TASK_QUEUE, workflowId: `gates/${input.runId}`, args: [input] });

async function completedSweep(setup: BatchSweep, input: SweepInput): Promise<SweepSummary> {
  const worker = await testWorker(env(), { stateDir: join(setup.dir, 'state') });
  return (await worker.runUntil(async () => (await start(input)).result())) as SweepSummary;
}

const liveRequests = (standIn: StandIn) => standIn.requests.filter((request) => !request.side && request.answered !== 'batch');
/** custom_ids submitted more than once, over every batch the stand-in received. */
const sentTwice = (standIn: StandIn) => [...standIn.batches.submitted].filter(([, times]) => times > 1).map(([customId]) => customId);

async function expectFreshAndValid(setup: BatchSweep): Promise<void> {
  expect((await selectPairs(setup.checkout, { notes: exampleNotes, gates })).filter((pair) => pair.status !== 'fresh')).toEqual([]);
  const validated = await validateFiles(await collectFiles(setup.checkout, ['kb'], setup.checkout), { repoRoot: setup.checkout });
  expect(validated.results.filter((file) => file.findings.some((finding) => finding.severity === 'fail')).map((file) => file.file)).toEqual([]);
}

describe.each(['anthropic', 'openai'] as const)('a %s sweep with --batch', (api) => {
  test.each(['pair', 'bundle'] as const)('a %s sweep of the example KB goes as one provider batch, every pair fresh and valid, priced at the batch discount', async (grouping) => {
    const setup = await batchSweep(api, reply.review('pass', ['The description restates the title; say what the note adds.']));
    const before = await selectPairs(setup.checkout, { notes: exampleNotes, gates });
    const summary = await completedSweep(setup, setup.input(grouping));
    expect(summary.status).toBe('completed');
    expect(summary.counts.written.pass).toBe(before.length);
    expect(setup.standIn.batches.list).toHaveLength(1);
    expect(setup.standIn.batches.submitted.size).toBe(summary.units);
    expect(sentTwice(setup.standIn)).toEqual([]);
    expect(liveRequests(setup.standIn)).toEqual([]);
    await expectFreshAndValid(setup);
    // Half the live price of exactly the tokens used, cache tokens included.
    const tokens = summary.counts.tokens!;
    expect(tokens.cacheRead).toBeGreaterThan(0);
    const live = launchCost({ model: models[api], usage: { inputTokens: tokens.input, outputTokens: tokens.output, cacheReadTokens: tokens.cacheRead, cacheWriteTokens: tokens.cacheWrite }, costUsd: null }).costUsd!;
    expect(summary.counts.costUsd).toBeCloseTo(live / 2, 10);
  });

  test('a worker that dies after the provider accepted the batch, before its ID was recorded, adopts that batch: nothing is submitted twice', async () => {
    const setup = await batchSweep(api, reply.review('pass'));
    process.env['COMMONPLACE_CHAOS'] = 'lose-batch-id';
    const summary = await completedSweep(setup, setup.input('pair'));
    expect(summary.status).toBe('completed');
    expect(setup.standIn.batches.list).toHaveLength(1);
    expect(sentTwice(setup.standIn)).toEqual([]);
    await expectFreshAndValid(setup);
  });

  test('a worker that dies after collecting the results collects them again on the retry: nothing is submitted twice', async () => {
    const setup = await batchSweep(api, reply.review('warn', ['One sentence says two things.']));
    process.env['COMMONPLACE_CHAOS'] = 'lose-collect';
    const summary = await completedSweep(setup, setup.input('bundle'));
    expect(summary.status).toBe('completed');
    expect(summary.counts.written.warn).toBeGreaterThan(0);
    expect(setup.standIn.batches.list).toHaveLength(1);
    expect(sentTwice(setup.standIn)).toEqual([]);
    expect(liveRequests(setup.standIn)).toEqual([]);
  });

  test('a batch that ended while no worker ran is collected when a worker comes back', async () => {
    const setup = await batchSweep(api, reply.review('pass'));
    setup.standIn.batches.endAfterPolls = Number.POSITIVE_INFINITY;
    const input = setup.input('pair');
    const first = await testWorker(env(), { stateDir: join(setup.dir, 'state') });
    const handle = await first.runUntil(async () => {
      const started = await start(input);
      await waitFor('the provider batch to be submitted and polled', async () => (setup.standIn.batches.list[0]?.polls ?? 0) > 0, 60_000);
      return started;
    });
    setup.standIn.batches.end(setup.standIn.batches.list[0]!.id);
    const second = await testWorker(env(), { stateDir: join(setup.dir, 'state') });
    const summary = (await second.runUntil(handle.result())) as SweepSummary;
    expect(summary.status).toBe('completed');
    expect(setup.standIn.batches.list).toHaveLength(1);
    expect(sentTwice(setup.standIn)).toEqual([]);
    await expectFreshAndValid(setup);
  });

  test('cancelling the sweep cancels its provider batch at the provider', async () => {
    const setup = await batchSweep(api, reply.review('pass'));
    setup.standIn.batches.endAfterPolls = Number.POSITIVE_INFINITY;
    const worker = await testWorker(env(), { stateDir: join(setup.dir, 'state') });
    await worker.runUntil(async () => {
      const handle = await start(setup.input('pair'));
      await waitFor('the provider batch to be submitted and polled', async () => (setup.standIn.batches.list[0]?.polls ?? 0) > 0, 60_000);
      await handle.cancel();
      await waitFor('the provider batch to be cancelled', async () => setup.standIn.batches.list[0]?.status === 'canceled', 60_000);
      await waitFor('the sweep to close cancelled', async () => (await handle.describe()).status.name !== 'RUNNING', 60_000);
    });
    expect(sentTwice(setup.standIn)).toEqual([]);
    expect(liveRequests(setup.standIn)).toEqual([]);
  });

  test('a request the batch answered with an error is asked again live, and that answer is accepted', async () => {
    const setup = await batchSweep(api, reply.serverError(), reply.review('fail', ['The title names a topic, not a claim.']));
    const input = { ...setup.input('pair'), notes: [exampleNotes[0]!], gates: ['sentence/stock-phrases'] };
    const summary = await completedSweep(setup, input);
    expect(summary.counts.written).toEqual({ pass: 0, warn: 0, fail: 1, report: 0 });
    expect(setup.standIn.batches.submitted.size).toBe(1);
    expect(liveRequests(setup.standIn).map((request) => request.status)).toEqual([200]);
  });

  test('an expired request is resubmitted once, and when it expires again the sweep stops launch-failed', async () => {
    const setup = await batchSweep(api, reply.review('pass'));
    setup.standIn.batches.expires = () => true;
    const input = { ...setup.input('pair'), notes: [exampleNotes[0]!], gates: ['sentence/stock-phrases'] };
    const worker = await testWorker(env(), { stateDir: join(setup.dir, 'state') });
    let progress: SweepProgress | undefined;
    await worker.runUntil(async () => {
      const handle = await start(input);
      const result = handle.result().catch(() => undefined);
      await waitFor('the sweep to stop', async () => (progress = await handle.query<SweepProgress>('progress')).status === 'stopped', 120_000);
      await handle.terminate('test over').catch(() => undefined);
      await result;
    });
    expect(progress!.stops[0]!.kind).toBe('launch-failed');
    expect(progress!.stops[0]!.reason).toMatch(/expired again after one resubmission/);
    expect(setup.standIn.batches.list).toHaveLength(2);
    expect([...setup.standIn.batches.submitted.keys()].map((customId) => customId.slice(-2)).sort()).toEqual(['-1', '-2']);
    expect(sentTwice(setup.standIn)).toEqual([]);
    expect(liveRequests(setup.standIn)).toEqual([]);
  });
});
