import { MockActivityEnvironment } from '@temporalio/testing';
import { join } from 'node:path';
import { prepareCompare } from '../../src/activities/review/compare/prepare.js';
import type { CompareSummary } from '../../src/review/compare/run-types.js';
import type { SweepInput, SweepSummary } from '../../src/review/sweep-types.js';
import { TASK_QUEUE } from '../../src/search-attributes.js';
import { queryOnceStarted, testWorker, uniqueId } from '../helpers/temporal.js';
import { useDevServer } from '../helpers/servers.js';
import { compareDir, compareFixture, DISPUTED, readRouteVerdicts, readSample, resultFiles, starts, type CompareFixture } from './helpers.js';
import { readFile, writeFile } from 'node:fs/promises';
import type { CompareProgress } from '../../src/review/compare/run-types.js';
import type { BatchProgress } from '../../src/workflows/gate-batch.js';
import { scratch, waitFor } from '../helpers/fake.js';

const { env } = useDevServer();

const runIdOf = (prefix: string) => uniqueId(prefix).replace(/\//g, '-');

async function compare(fixture: CompareFixture, runId: string, extra: Parameters<CompareFixture['input']>[1] = {}): Promise<CompareSummary> {
  const worker = await testWorker(env(), { stateDir: join(fixture.dir, 'state') });
  return (await worker.runUntil(
    env().client.workflow.execute('compareRun', { taskQueue: TASK_QUEUE, workflowId: `compare/${runId}`, args: [fixture.input(runId, extra)] }),
  )) as CompareSummary;
}

describe('a compare run of two fake routes on the example KB', () => {
  let fixture: CompareFixture;
  let runId: string;
  let summary: CompareSummary;
  let resultsBefore: Record<string, string>;
  beforeAll(async () => {
    fixture = await compareFixture();
    // A sweep of one gate first, so the KB holds result files the compare run must leave as they are.
    const sweepId = runIdOf('GS');
    const sweep: SweepInput = {
      checkout: fixture.checkout,
      runId: sweepId,
      notes: [],
      gates: ['frontmatter/title-as-claim'],
      criteria: ['gates'],
      grouping: 'pair',
      profile: 'lenient',
      concurrency: 2,
      batchSize: 10,
      autoResume: false,
      profilesFile: fixture.profilesFile,
    };
    const worker = await testWorker(env(), { stateDir: join(fixture.dir, 'state') });
    const swept = (await worker.runUntil(
      env().client.workflow.execute('gateSweep', { taskQueue: TASK_QUEUE, workflowId: `gates/${sweepId}`, args: [sweep] }),
    )) as SweepSummary;
    expect(swept.status).toBe('completed');
    resultsBefore = await resultFiles(fixture.checkout);
    runId = runIdOf('CMP');
    summary = await compare(fixture, runId);
  }, 240_000);

  test("keeps each route's verdicts apart in its run directory, one per sampled pair, with review text, executor and spend", async () => {
    expect(summary.status).toBe('completed');
    const sample = await readSample(fixture.checkout, runId);
    const pairs = sample.pairs.map((pair) => `${pair.note} ${pair.criterion}`).sort();
    for (const file of ['lenient_pair.jsonl', 'strict_pair.jsonl']) {
      const verdicts = await readRouteVerdicts(fixture.checkout, runId, file);
      expect(verdicts.map((verdict) => `${verdict.note} ${verdict.criterion}`).sort()).toEqual(pairs);
      for (const verdict of verdicts) {
        expect(verdict).toMatchObject({ route: file.replace('_pair.jsonl', ':pair'), executor: 'fake' });
        expect(verdict.review).toMatch(/^The fake harness reviewed .*\n\nResult: (pass|fail)\n$/);
        expect(verdict.noteHash).toMatch(/^[0-9a-f]{64}$/);
      }
    }
  });

  test('the scripted disagreement is where the script put it: the strict route fails the disputed gate, the lenient one passes it', async () => {
    const lenient = await readRouteVerdicts(fixture.checkout, runId, 'lenient_pair.jsonl');
    const strict = await readRouteVerdicts(fixture.checkout, runId, 'strict_pair.jsonl');
    const sample = await readSample(fixture.checkout, runId);
    const disputed = sample.pairs.filter((pair) => pair.criterion === DISPUTED).length;
    expect(disputed).toBeGreaterThanOrEqual(1);
    expect(lenient.every((verdict) => verdict.verdict === 'pass')).toBe(true);
    expect(strict.filter((verdict) => verdict.verdict === 'fail')).toHaveLength(disputed);
    expect(strict.filter((verdict) => verdict.verdict === 'fail').every((verdict) => verdict.criterion === DISPUTED)).toBe(true);
  });

  test("asks every sampled pair once under each route and leaves the KB's result files as they were", async () => {
    const sample = await readSample(fixture.checkout, runId);
    expect(await starts(fixture.ledgers.strict)).toHaveLength(sample.size);
    // The lenient profile also ran the sweep before: one launch per pair of its gate besides the compare's.
    const sweepLaunches = Object.keys(resultsBefore).length;
    expect(await starts(fixture.ledgers.lenient)).toHaveLength(sample.size + sweepLaunches);
    expect(await resultFiles(fixture.checkout)).toEqual(resultsBefore);
  });

  test('ends with the report written in its run directory and names its paths in the summary', async () => {
    expect(summary.report.json).toBe(join(compareDir(fixture.checkout, runId), 'report.json'));
    const report = JSON.parse(await readFile(summary.report.json, 'utf8')) as { runId: string; routes: string[]; reference: string };
    expect(report).toMatchObject({ runId, routes: ['lenient:pair', 'strict:pair'], reference: 'lenient:pair' });
    expect(summary.routes.map((route) => [route.route, route.state])).toEqual([
      ['lenient:pair', 'done'],
      ['strict:pair', 'done'],
    ]);
  });

  test('writes what it asks in run.json: its routes in order and its reference', async () => {
    const run = JSON.parse(await readFile(join(compareDir(fixture.checkout, runId), 'run.json'), 'utf8')) as unknown;
    expect(run).toEqual({ runId, routes: ['lenient:pair', 'strict:pair'], reference: 'lenient:pair' });
  });

  test("a bundle route asks one launch per note and lens of the sample and keeps one verdict per pair, each with its share of the launch's tokens", async () => {
    const strictBefore = (await starts(fixture.ledgers.strict)).length;
    const bundled = runIdOf('CMP');
    const done = await compare(fixture, bundled, { routes: ['lenient:pair', 'strict:bundle'], criteria: ['sentence/*'], size: 6, perCriterionMin: 2 });
    expect(done.status).toBe('completed');
    const sample = await readSample(fixture.checkout, bundled);
    const units = new Set(sample.pairs.map((pair) => `${pair.note} ${pair.criterion.split('/')[0]!}`));
    expect((await starts(fixture.ledgers.strict)).length - strictBefore).toBe(units.size);
    const verdicts = await readRouteVerdicts(fixture.checkout, bundled, 'strict_bundle.jsonl');
    expect(verdicts.map((verdict) => `${verdict.note} ${verdict.criterion}`).sort()).toEqual(
      sample.pairs.map((pair) => `${pair.note} ${pair.criterion}`).sort(),
    );
    expect(verdicts.filter((verdict) => verdict.verdict === 'fail').map((verdict) => verdict.criterion)).toEqual(
      sample.pairs.filter((pair) => pair.criterion === DISPUTED).map(() => DISPUTED),
    );
    // A note whose two sampled gates were asked in one launch: each verdict holds half of that launch's output tokens.
    const shared = verdicts.filter((verdict) => verdicts.filter((other) => other.note === verdict.note).length === 2);
    expect(shared.length).toBeGreaterThan(0);
    expect(shared.every((verdict) => verdict.tokens.output === 21)).toBe(true);
  });

  test("--reference results reads the KB's fresh result files as a route and asks only the other route", async () => {
    const strictBefore = (await starts(fixture.ledgers.strict)).length;
    const lenientBefore = (await starts(fixture.ledgers.lenient)).length;
    const again = runIdOf('CMP');
    const done = await compare(fixture, again, { routes: ['results', 'strict:pair'], reference: 'results', criteria: ['frontmatter/title-as-claim'], size: 4 });
    expect(done.status).toBe('completed');
    const sample = await readSample(fixture.checkout, again);
    expect((await starts(fixture.ledgers.strict)).length - strictBefore).toBe(sample.size);
    expect((await starts(fixture.ledgers.lenient)).length).toBe(lenientBefore);
    const results = await readRouteVerdicts(fixture.checkout, again, 'results.jsonl');
    expect(results).toHaveLength(sample.size);
    expect(results.every((verdict) => verdict.route === 'results' && verdict.executor === 'fake' && verdict.verdict === 'pass')).toBe(true);
    expect(await resultFiles(fixture.checkout)).toEqual(resultsBefore);
  });
});

describe('the compare sample as a run draws it', () => {
  test('is reproducible from the seed: two runs with one seed draw the same pairs, another seed others', async () => {
    const fixture = await compareFixture();
    const draw = async (runId: string, seed: number) => {
      await new MockActivityEnvironment().run(prepareCompare, fixture.input(runId, { seed, criteria: [], size: 10 }));
      return (await readSample(fixture.checkout, runId)).pairs;
    };
    const first = await draw('CMP-a', 5);
    expect(first).toHaveLength(10);
    expect(await draw('CMP-b', 5)).toEqual(first);
    expect(await draw('CMP-c', 6)).not.toEqual(first);
  });
});

test("a compare run's second route shows the run-wide spend: its running batch holds the first route's dollars", async () => {
  const release = join(await scratch(), 'release');
  const paid = { review: 'pass' as const, costUsd: 0.1 };
  // The lenient route's launches report $0.10 each; the strict route's first launch waits until the test releases it.
  const fixture = await compareFixture({
    lenient: [{ attempts: [paid] }],
    strict: [{ attempts: [{ ...paid, waitForFile: release }] }],
  });
  const runId = runIdOf('CMP');
  const worker = await testWorker(env(), { stateDir: join(fixture.dir, 'state') });
  await worker.runUntil(async () => {
    const handle = await env().client.workflow.start('compareRun', {
      taskQueue: TASK_QUEUE,
      workflowId: `compare/${runId}`,
      args: [fixture.input(runId, { concurrency: 1 })],
    });
    let progress: CompareProgress | undefined;
    let batch: BatchProgress | undefined;
    await waitFor(
      "the strict route's first launch to run",
      async () => {
        progress = await handle.query<CompareProgress>('progress');
        if (progress.route !== 'strict:pair' || progress.currentBatch === undefined) return false;
        batch = await queryOnceStarted<BatchProgress>(env(), progress.currentBatch, 'batchProgress');
        return batch?.inFlight === 1;
      },
      120_000,
    );
    const lenient = (await starts(fixture.ledgers.lenient)).length;
    expect(lenient).toBeGreaterThan(1);
    expect(progress!.spend!.costUsd).toBeCloseTo(0.1 * lenient, 9);
    expect(batch!.spend!.costUsd).toBeCloseTo(0.1 * lenient, 9);
    expect(batch!.spend!.launches).toBe(lenient);
    await writeFile(release, '');
    expect(((await handle.result()) as CompareSummary).status).toBe('completed');
  });
}, 240_000);
