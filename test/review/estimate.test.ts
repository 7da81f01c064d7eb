// `--estimate` against the run that follows it: a sweep of the example KB at the Anthropic stand-in and
// of a sample of the vendored corpus at the OpenAI stand-in, each through the CLI and the file's CLI
// worker. The estimate's requests, input tokens (and the cached part), output tokens and dollars are
// within 20 % of the stand-in's ledger; `--estimate` itself starts nothing and writes nothing; a
// started sweep's first line is the same estimate. The output per pair comes from a first, recorded sweep.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { launchCost } from '../../src/harness/prices.js';
import { packageRoot } from '../../src/paths.js';
import { selectPairs } from '../../src/review/status.js';
import { estimateLine, type Estimate, type RouteEstimate } from '../../src/runs/estimate.js';
import { runCli } from '../helpers/cli.js';
import { scratch } from '../helpers/fake.js';
import { expectShape } from '../helpers/json-shape.js';
import { corpusRoot, someNotes, kbCopy } from '../helpers/kb.js';
import { reply, standInKey, standInProfile, useStandIns, writeProfilesFile, type StandIn } from '../helpers/model-apis/index.js';
import { useDevServerWithCliWorker } from '../helpers/servers.js';

// The file's CLI worker reads the key from its environment, inherited from this process when it starts.
const KEY_ENV = standInKey('COMMONPLACE_TEST_ESTIMATE_KEY');
const { address } = useDevServerWithCliWorker();
const startStandIn = useStandIns('afterAll');

/** A committed Git checkout holding a copy of `kb`, held by the file's worker. */
const checkoutOf = (kb: string) => kbCopy(kb, { prefix: 'commonplace-estimate-', git: true });

interface Setup {
  checkout: string;
  standIn: StandIn;
  model: string;
  /** The sweep's options besides --notes. */
  args: string[];
}

async function setUp(api: 'anthropic' | 'openai', model: string, kb: string, grouping: 'pair' | 'bundle', concurrency: number): Promise<Setup> {
  const standIn = await startStandIn(api, reply.review('warn', ['The title states the claim the body argues; keep it that way.']));
  const checkout = await checkoutOf(kb);
  const profile = `estimate-${api}`;
  const profiles = await writeProfilesFile(await scratch(), { [profile]: standInProfile(standIn, model, KEY_ENV, { 'max-output-tokens': 2048 }) });
  const args = ['--kb', checkout, '--profile', profile, '--profiles', profiles, '--grouping', grouping, '--concurrency', String(concurrency)];
  return { checkout, standIn, model, args };
}

const cli = (args: string[]) => runCli(args, { env: { TEMPORAL_ADDRESS: address() } });
const notesArgs = (notes: string[]) => notes.flatMap((note) => ['--notes', note]);

/** A sweep through the CLI, followed to its end (exit 0). */
async function sweep(setup: Setup, notes: string[]) {
  const run = await cli(['review', 'run', 'gates', ...setup.args, ...notesArgs(notes)]);
  expect({ exitCode: run.exitCode, stderr: run.exitCode === 0 ? '' : run.stderr }).toEqual({ exitCode: 0, stderr: '' });
  return run;
}

/** `--estimate --json` through the CLI: the estimate document's one route. */
async function estimate(setup: Setup, notes: string[]): Promise<{ estimate: Estimate; route: RouteEstimate }> {
  const run = await cli(['review', 'run', 'gates', ...setup.args, ...notesArgs(notes), '--estimate', '--json']);
  expect({ exitCode: run.exitCode, stderr: run.stderr }).toEqual({ exitCode: 0, stderr: '' });
  const document = expectShape(String(run.stdout), 'estimate') as unknown as Estimate;
  return { estimate: document, route: document.routes[0]! };
}

/** What the stand-in answered and counted since it last forgot: requests, tokens, and their price. */
function ledger(standIn: StandIn, model: string) {
  const asked = standIn.requests.filter((request) => !request.side && request.usage);
  const sum = (pick: (usage: NonNullable<(typeof asked)[number]['usage']>) => number) => asked.reduce((total, request) => total + pick(request.usage!), 0);
  const dollars = asked.reduce((total, request) => {
    const usage = request.usage!;
    const inputTokens = standIn.api === 'openai' ? usage.input + usage.cacheRead : usage.input;
    const usd = launchCost({
      model,
      usage: { inputTokens, outputTokens: usage.output, cacheReadTokens: usage.cacheRead, cacheWriteTokens: usage.cacheWrite },
      costUsd: null,
    }).costUsd;
    return total + (usd ?? 0);
  }, 0);
  return {
    requests: asked.length,
    input: sum((usage) => usage.input + usage.cacheRead + usage.cacheWrite),
    cached: sum((usage) => usage.cacheRead),
    output: sum((usage) => usage.output),
    dollars,
  };
}

/** The estimate's figures beside the ledger's, each as its ratio to the ledger's (1 when both are 0). */
function ratios(route: RouteEstimate, actual: ReturnType<typeof ledger>) {
  const ratio = (estimated: number, counted: number) => (counted === 0 ? (estimated === 0 ? 1 : Infinity) : Number((estimated / counted).toFixed(3)));
  const t = route.tokens;
  return {
    requests: ratio(route.requests, actual.requests),
    input: ratio(t.uncached + t.cacheRead + t.cacheWrite, actual.input),
    cached: ratio(t.cacheRead, actual.cached),
    output: ratio(t.output, actual.output),
    dollars: ratio(route.dollars.live ?? 0, actual.dollars),
  };
}

const within20 = {
  requests: expect.any(Number),
  input: expect.any(Number),
  cached: expect.any(Number),
  output: expect.any(Number),
  dollars: expect.any(Number),
};
function expectWithin20(figures: ReturnType<typeof ratios>): void {
  expect(figures).toEqual(within20);
  const outside = Object.entries(figures).filter(([, value]) => value < 0.8 || value > 1.2);
  expect({ figures, outside }).toEqual({ figures, outside: [] });
}

/** Every path under a directory (the checkout's files, Git's own included), to show nothing was written. */
async function tree(root: string): Promise<string[]> {
  return (await readdir(root, { recursive: true })).map(String).sort();
}

describe('--estimate on the example KB, then the sweep at the Anthropic stand-in (pair grouping)', () => {
  const notes = ['kb/notes/verifiability-gradient.md', 'kb/notes/why-notes-have-types.md'];
  let setup: Setup;
  let estimated: { estimate: Estimate; route: RouteEstimate };
  let before: string[];
  let after: string[];
  let askedByEstimate: number;
  let started: Awaited<ReturnType<typeof sweep>>;
  beforeAll(async () => {
    setup = await setUp('anthropic', 'claude-sonnet-4-5', join(packageRoot(), 'examples', 'kb'), 'pair', 1);
    // A first sweep of one note records what an answer's output is.
    await sweep(setup, ['kb/notes/a-bare-writing-prompt-does-not-determine-its-intended-contribution.md']);
    setup.standIn.resetCounts();
    // The run that follows starts on a cold cache, as the estimate assumes.
    setup.standIn.cache.seen.clear();
    setup.standIn.cache.expiresAt.clear();
    before = await tree(setup.checkout);
    estimated = await estimate(setup, notes);
    after = await tree(setup.checkout);
    askedByEstimate = setup.standIn.requests.length;
    started = await sweep(setup, notes);
  });

  test('starts nothing and writes nothing: the stand-in was not asked, and the checkout holds the same files', () => {
    expect(after).toEqual(before);
    expect(askedByEstimate).toBe(0);
  });

  test('prints its route with the recorded output per pair, named as recorded', () => {
    expect(estimated.route).toMatchObject({ route: 'estimate-anthropic', harness: 'anthropic', model: 'claude-sonnet-4-5', grouping: 'pair', batch: false });
    expect(estimated.route.pairs).toBeGreaterThan(10);
    expect(estimated.route.basis.join('\n')).toMatch(/output: \d+ tokens a pair, the mean of \d+ recorded results/);
  });

  test("the started sweep's first printed line is the same estimate", () => {
    expect(String(started.stderr).split('\n')[0]).toBe(estimateLine(estimated.estimate));
  });

  test("requests, input (and its cached part), output and dollars are within 20 % of the stand-in's ledger", () => {
    expectWithin20(ratios(estimated.route, ledger(setup.standIn, setup.model)));
  });

  test("the pairs estimated are the sweep's note-first pairs, each offering its note's tools, which the estimate priced", () => {
    const asked = setup.standIn.requests.filter((request) => !request.side && Array.isArray(request.json?.tools));
    expect(asked.length).toBe(estimated.route.pairs);
    for (const request of asked) expect((request.json!.tools as unknown[]).length).toBeGreaterThan(1);
  });
});

describe('--estimate on the corpus: the whole corpus estimated, a sample of it swept at the OpenAI stand-in (bundle grouping)', () => {
  let setup: Setup;
  let sample: string[];
  let whole: RouteEstimate;
  let estimated: { estimate: Estimate; route: RouteEstimate };
  beforeAll(async () => {
    setup = await setUp('openai', 'gpt-5-mini', join(corpusRoot, 'kb'), 'bundle', 2);
    sample = await someNotes(4);
    await sweep(setup, sample.slice(0, 1));
    setup.standIn.resetCounts();
    setup.standIn.cache.seen.clear();
    setup.standIn.cache.expiresAt.clear();
    whole = (await estimate(setup, [])).route;
    estimated = await estimate(setup, sample);
    await sweep(setup, sample);
  });

  test('the whole-corpus estimate covers every stale and missing pair of the corpus', async () => {
    const pairs = await selectPairs(setup.checkout, { criteria: ['gates', 'types', 'collections'] });
    expect(whole.pairs).toBe(pairs.filter((pair) => pair.status !== 'fresh').length + estimated.route.pairs);
    expect(whole.pairs).toBeGreaterThan(10_000);
    expect(whole.dollars.live).toBeGreaterThan(0);
  });

  test("the sample's requests, input (and its cached part), output and dollars are within 20 % of the stand-in's ledger", () => {
    expect(estimated.route.basis.join('\n')).toMatch(/the mean of \d+ recorded results/);
    expectWithin20(ratios(estimated.route, ledger(setup.standIn, setup.model)));
  });
});
