// Gate sweeps asked as provider batches (`--batch`) through both model-API executors: the real batch
// activities, a real Temporal server (time-skipping, so the polls' durable timers pass), and the
// stand-ins' Message Batches and Files + Batches, which count every request submitted per custom_id.
import type { WorkflowHandle } from '@temporalio/client';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { batchLaunchCost, launchCost } from '../../src/harness/prices.js';
import { selectPairs } from '../../src/review/status.js';
import type { SweepInput, SweepProgress, SweepSummary } from '../../src/review/sweep-types.js';
import {
  modelApiSweep,
  type Api,
  completedSweep,
  exampleNotes,
  gates,
  liveRequests,
  models,
  sentTwice,
  staleAndInvalid,
  stoppedSweep,
  type BatchSweep,
} from '../helpers/batch-sweep.js';
import { startSweep } from '../helpers/sweep.js';
import { waitFor } from '../helpers/fake.js';
import { reply, useStandIns, type Reply } from '../helpers/model-apis/index.js';
import { allText } from '../helpers/model-apis/replies.js';
import { useTimeSkippingServer } from '../helpers/servers.js';
import { testWorker } from '../helpers/temporal.js';

const { env } = useTimeSkippingServer();

const closing = useStandIns();

/** A batch sweep whose stand-in this file closes after the test. */
const setUp = (api: Api, ...replies: Reply[]): Promise<BatchSweep> => modelApiSweep(api, replies, { batch: 'always', start: closing });

const start = (input: SweepInput): Promise<WorkflowHandle> => startSweep(env(), input);

/** Waits until a sweep stops with the stand-in holding `batches` provider batches, and returns its progress then. */
async function stoppedAfter(handle: WorkflowHandle, setup: BatchSweep, batches: number): Promise<SweepProgress> {
  let progress: SweepProgress | undefined;
  await waitFor(
    `the sweep to stop after ${batches} provider batch(es)`,
    async () => (progress = await handle.query<SweepProgress>('progress')).status === 'stopped' && setup.standIn.batches.list.length === batches,
    120_000,
  );
  return progress!;
}

async function expectFreshAndValid(setup: BatchSweep): Promise<void> {
  expect(await staleAndInvalid(setup)).toEqual({ stale: [], invalid: [] });
}

describe.each(['anthropic', 'openai'] as const)('a %s sweep with --batch', (api) => {
  test.each(['pair', 'bundle'] as const)(
    'a %s sweep of the example KB goes as one provider batch, every pair fresh and valid, priced at the batch discount',
    async (grouping) => {
      const setup = await setUp(api, reply.review('warn', ['The description restates the title; say what the note adds.']));
      const before = await selectPairs(setup.checkout, { notes: exampleNotes, gates, criteria: ['gates'] });
      const summary = await completedSweep(env(), setup, setup.input(grouping));
      expect(summary.status).toBe('completed');
      expect(summary.counts.written.warn).toBe(before.length);
      expect(setup.standIn.batches.list).toHaveLength(1);
      expect(setup.standIn.batches.submitted.size).toBe(summary.units);
      expect(sentTwice(setup.standIn)).toEqual([]);
      expect(liveRequests(setup.standIn)).toEqual([]);
      await expectFreshAndValid(setup);
      // Half the live price of exactly the tokens used, cache tokens included.
      const tokens = summary.counts.tokens!;
      expect(tokens.cacheRead).toBeGreaterThan(0);
      const live = launchCost({
        model: models[api],
        usage: { inputTokens: tokens.input, outputTokens: tokens.output, cacheReadTokens: tokens.cacheRead, cacheWriteTokens: tokens.cacheWrite },
        costUsd: null,
      }).costUsd!;
      expect(summary.counts.costUsd).toBeCloseTo(live / 2, 10);
    },
  );

  test('a worker that dies after the provider accepted the batch, before its ID was recorded, adopts that batch: nothing is submitted twice', async () => {
    const setup = await setUp(api, reply.review('pass'));
    const summary = await completedSweep(env(), setup, setup.input('pair'), { do: 'lose', at: 'batch-created' });
    expect(summary.status).toBe('completed');
    // The retried submission looked for its batch at the provider, and adopted it.
    expect(setup.standIn.requests.filter((request) => request.method === 'GET' && /\/batches$/.test(request.path))).not.toHaveLength(0);
    expect(setup.standIn.batches.list).toHaveLength(1);
    expect(sentTwice(setup.standIn)).toEqual([]);
    await expectFreshAndValid(setup);
  });

  test('a worker that dies after collecting the results collects them again on the retry: nothing is submitted twice', async () => {
    const setup = await setUp(api, reply.review('warn', ['One sentence says two things.']));
    const summary = await completedSweep(env(), setup, setup.input('bundle'), { do: 'lose', at: 'after collectProviderBatch' });
    expect(summary.status).toBe('completed');
    // The results were read twice (the lost collect and its retry); the requests were sent once.
    const reads = setup.standIn.requests.filter(
      (request) => request.method === 'GET' && (/\/results$/.test(request.path) || /^\/v1\/files\/file_out_/.test(request.path)),
    );
    expect(reads).toHaveLength(2);
    expect(summary.counts.written.warn).toBeGreaterThan(0);
    expect(setup.standIn.batches.list).toHaveLength(1);
    expect(sentTwice(setup.standIn)).toEqual([]);
    expect(liveRequests(setup.standIn)).toEqual([]);
  });

  test('cancelling the sweep cancels its provider batch at the provider', async () => {
    const setup = await setUp(api, reply.review('pass'));
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
    const setup = await setUp(api, reply.serverError(), reply.review('fail', ['The title names a topic, not a claim.']));
    const input = { ...setup.input('pair'), notes: [exampleNotes[0]!], gates: ['sentence/stock-phrases'] };
    const summary = await completedSweep(env(), setup, input);
    expect(summary.counts.written).toEqual({ pass: 0, warn: 0, fail: 1, report: 0 });
    expect(setup.standIn.batches.submitted.size).toBe(1);
    expect(liveRequests(setup.standIn).map((request) => request.status)).toEqual([200]);
  });

  test('a malformed answer in the provider batch is asked again live, and both are counted: the batch one at the batch price', async () => {
    const setup = await setUp(api, reply.malformedReview(), reply.review('fail', ['The title names a topic, not a claim.']));
    const input = { ...setup.input('pair'), notes: [exampleNotes[0]!], gates: ['sentence/stock-phrases'] };
    const summary = await completedSweep(env(), setup, input);
    expect(summary.counts.written).toEqual({ pass: 0, warn: 0, fail: 1, report: 0 });
    const held = setup.standIn.batches.list[0]!.requests[0]!.result as { kind: 'succeeded'; body: Record<string, unknown> };
    const body = held.body as unknown as { usage: Record<string, number> & { input_tokens_details?: { cached_tokens: number } } };
    const batchUsage =
      api === 'anthropic'
        ? {
            inputTokens: body.usage.input_tokens!,
            outputTokens: body.usage.output_tokens!,
            cacheReadTokens: body.usage.cache_read_input_tokens ?? 0,
            cacheWriteTokens: body.usage.cache_creation_input_tokens ?? 0,
          }
        : {
            inputTokens: body.usage.input_tokens!,
            outputTokens: body.usage.output_tokens!,
            cacheReadTokens: body.usage.input_tokens_details?.cached_tokens ?? 0,
            cacheWriteTokens: 0,
          };
    const [live] = liveRequests(setup.standIn);
    const liveUsage = live!.usage!;
    const liveCost = launchCost({
      model: models[api],
      costUsd: null,
      usage: {
        inputTokens: liveUsage.input + (api === 'openai' ? liveUsage.cacheRead : 0),
        outputTokens: liveUsage.output,
        cacheReadTokens: liveUsage.cacheRead,
        cacheWriteTokens: liveUsage.cacheWrite,
      },
    }).costUsd!;
    expect(summary.counts.launches).toBe(2);
    expect(summary.counts.costUsd).toBeCloseTo(batchLaunchCost(models[api], batchUsage)! + liveCost, 12);
  });

  test('an expired request is resubmitted once in a follow-up batch, and its answer there is accepted', async () => {
    const setup = await setUp(api, reply.review('pass'));
    setup.standIn.batches.expires = (customId) => customId.endsWith('-1');
    const input = { ...setup.input('pair'), notes: [exampleNotes[0]!] };
    const summary = await completedSweep(env(), setup, input);
    expect(summary.status).toBe('completed');
    expect(summary.counts.problems).toBe(0);
    expect(setup.standIn.batches.list).toHaveLength(2);
    expect(setup.standIn.batches.submitted.size).toBe(2 * summary.units);
    expect(sentTwice(setup.standIn)).toEqual([]);
    expect(await staleAndInvalid(setup, input.notes)).toEqual({ stale: [], invalid: [] });
  });

  test("a provider that refuses every submission stops the sweep launch-failed after the activity's five tries, with nothing submitted", async () => {
    const setup = await setUp(api, reply.review('pass'));
    setup.standIn.batches.refuseCreates = true;
    const input = { ...setup.input('pair'), notes: [exampleNotes[0]!] };
    const progress = await stoppedSweep(env(), setup, input);
    expect(progress.stops[0]!.kind).toBe('launch-failed');
    expect(progress.stops[0]!.reason).toMatch(/^provider batch of \d+ units: /);
    expect(setup.standIn.requests.filter((request) => request.method === 'POST' && /\/batches$/.test(request.path))).toHaveLength(5);
    expect(setup.standIn.batches.submitted.size).toBe(0);
    expect(liveRequests(setup.standIn)).toEqual([]);
  });

  test('under --max-cost a provider batch submits only the units the cap has room for at the mean so far; the rest stop spend-limit and are batched on the resume', async () => {
    const setup = await setUp(api, reply.review('pass'));
    // Each batch ends at its first poll, before any timer: the test waits on stops, not on the result, so no time is skipped.
    setup.standIn.batches.endAfterPolls = 1;
    const requests = () => setup.standIn.batches.list.map((batch) => batch.requests.length);
    // Three gate batches of four units; the first goes whole (no launch yet to take a mean from), then the cap stops the sweep.
    const input = { ...setup.input('pair'), batchSize: 4, maxCostUsd: 0.000001 };
    const worker = await testWorker(env(), { stateDir: join(setup.dir, 'state') });
    const summary = await worker.runUntil(async () => {
      const handle = await start(input);
      const first = await stoppedAfter(handle, setup, 1);
      expect(first.stops[0]!.kind).toBe('spend-limit');
      expect(requests()).toEqual([4]);
      const spent = first.spend!.costUsd;
      const mean = spent / 4;
      // Room for two and a half more at the mean: the next provider batch holds two of its four units.
      await handle.executeUpdate('resume', { args: [{ maxCostUsd: spent + 2.5 * mean }] });
      const second = await stoppedAfter(handle, setup, 2);
      expect(second.stops[0]!.kind).toBe('spend-limit');
      expect(requests()).toEqual([4, 2]);
      await handle.executeUpdate('resume', { args: [{ maxCostUsd: 10 }] });
      return (await handle.result()) as SweepSummary;
    });
    expect(summary.status).toBe('completed');
    expect(requests().reduce((sum, count) => sum + count, 0)).toBe(summary.units);
    expect(sentTwice(setup.standIn)).toEqual([]);
    expect(liveRequests(setup.standIn)).toEqual([]);
    await expectFreshAndValid(setup);
  });

  test('an expired request is resubmitted once; when it expires again the sweep stops launch-failed, and a resume asks it live (no third batch)', async () => {
    const setup = await setUp(api, reply.review('pass'));
    setup.standIn.batches.expires = () => true;
    // Each batch ends at its first poll, before any timer: the test waits on the stop, not on the result, so no time is skipped.
    setup.standIn.batches.endAfterPolls = 1;
    const input = { ...setup.input('pair'), notes: [exampleNotes[0]!], gates: ['sentence/stock-phrases'] };
    const worker = await testWorker(env(), { stateDir: join(setup.dir, 'state') });
    const summary = await worker.runUntil(async () => {
      const handle = await start(input);
      const progress = await stoppedAfter(handle, setup, 2);
      expect(progress.stops[0]!.kind).toBe('launch-failed');
      expect(progress.stops[0]!.reason).toMatch(/expired again after one resubmission \(a resume asks it live\)/);
      expect(setup.standIn.batches.list).toHaveLength(2);
      expect([...setup.standIn.batches.submitted.keys()].map((customId) => customId.slice(-2)).sort()).toEqual(['-1', '-2']);
      expect(liveRequests(setup.standIn)).toEqual([]);
      await handle.executeUpdate('resume', { args: [{}] });
      return (await handle.result()) as SweepSummary;
    });
    expect(summary.status).toBe('completed');
    expect(summary.counts.written.pass).toBe(1);
    expect(setup.standIn.batches.list).toHaveLength(2);
    expect(liveRequests(setup.standIn).map((request) => request.status)).toEqual([200]);
    expect(sentTwice(setup.standIn)).toEqual([]);
    expect((await selectPairs(setup.checkout, { notes: input.notes, gates: input.gates, criteria: ['gates'] })).map((pair) => pair.status)).toEqual(['fresh']);
  });
});

/** Every timer a run and its children (and theirs) started, by its duration in ms, in the order each run's history has them. */
async function timersOf(workflowId: string): Promise<number[]> {
  const events = (await env().client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const own = events.flatMap((event) => {
    const timeout = event.timerStartedEventAttributes?.startToFireTimeout;
    return timeout ? [Number(timeout.seconds ?? 0) * 1000 + Math.floor((timeout.nanos ?? 0) / 1e6)] : [];
  });
  const children = events.flatMap((event) => event.childWorkflowExecutionStartedEventAttributes?.workflowExecution?.workflowId ?? []);
  return [...own, ...(await Promise.all(children.map(timersOf))).flat()];
}

// The shipped poll back-off (BATCH_POLL): the tests of a dead worker on a dev server (harness/api-batches-resume)
// wait it out on a scaled clock (test/helpers/scaled-clock.ts); this one proves the numbers.
test("an anthropic pair sweep on Sonnet 4.5 with --batch sends its note-first pairs with their note's tools, each forcing its own, and accepts every answer", async () => {
  const setup = await setUp('anthropic', reply.review('pass'));
  const input = setup.input('pair');
  // The same profile on Sonnet 4.5 (a 1,024-token minimum), where a note with its tools is worth caching.
  const profiles = parse(await readFile(input.profilesFile!, 'utf8')) as { profiles: Record<string, { model: string }> };
  profiles.profiles[input.profile]!.model = 'claude-sonnet-4-5';
  await writeFile(input.profilesFile!, stringify(profiles));
  const before = await selectPairs(setup.checkout, { notes: exampleNotes, gates, criteria: ['gates'] });
  const summary = await completedSweep(env(), setup, input);
  expect(summary).toMatchObject({ status: 'completed', counts: { problems: 0, written: { pass: before.length } } });
  expect(liveRequests(setup.standIn)).toEqual([]);
  const sent = setup.standIn.batches.list.flatMap((batch) => batch.requests.map((held) => held.params));
  expect(sent).toHaveLength(before.length);
  for (const params of sent) {
    const tools = params.tools as { name: string }[];
    const note = /<note path="([^"]+)">/.exec(allText(params.system))![1]!;
    expect(tools).toHaveLength(before.filter((pair) => pair.note === note).length);
    expect(tools.map((tool) => tool.name)).toContain((params.tool_choice as { name: string }).name);
  }
  await expectFreshAndValid(setup);
});

test("a provider batch is polled again after 30 s, then after 60 s: the back-off's durable timers, as shipped", async () => {
  const setup = await setUp('anthropic', reply.review('pass'));
  setup.standIn.batches.endAfterPolls = 3;
  const input = { ...setup.input('pair'), notes: [exampleNotes[0]!] };
  const summary = await completedSweep(env(), setup, input);
  expect(summary.status).toBe('completed');
  expect((await timersOf(`gates/${input.runId}`)).filter((ms) => ms >= 10_000)).toEqual([30_000, 60_000]);
});
