// bench/review-cost: what a review costs on every route, on the same work. A sample of the shared
// corpus (every pair of N notes spread evenly over kb/notes, every criterion that applies: gates, type
// specs, collections) goes through:
//   API pair, API bundle   the anthropic executor through the real launch activity, at a local
//                          stand-in of the Messages API that counts what was sent (tokens: a quarter
//                          of the bytes) and keeps a prompt cache (breakpoints, 5-minute lifetime,
//                          each model's minimum, an entry readable 1 s after its write). Each answer is
//                          a structured review filled as a real one would be (verdicts and findings
//                          drawn per pair, below). The sweep's timing is simulated on the cache's
//                          clock: 16 launches at once, a wave every 4 s. A request puts its criteria
//                          or its note first (a note-first pair offering its note's tools, one per
//                          criterion, and forcing its own, as a sweep sends it); three unit orders: as selected (note by
//                          note), grouped by shared prefix, and grouped and dealt into 16 lanes; and
//                          the units as a sweep prepares them (src/activities/review/sweep/).
//   claude pair, claude-lean pair, claude bundle
//                          the pinned claude CLI through the launch activity at the same stand-in, as
//                          bench/launch-requests.ts plays them (read the note, read each criterion,
//                          write the review, answer), the review ~1,700 output tokens per gate (the
//                          original's telemetry); on the first M pairs and B bundles of the sample
//                          (each launch is a process of several seconds), figures per pair.
// Prices come from src/harness/prices.ts: Opus 4.6 (the telemetry's model), Sonnet 4.5, Haiku 4.5.
// Without caching is the same tokens, every one at the input price; batch is half of every price.
// Output priced honestly: the pair route as a sweep prepares it, with every answer's output fixed at
// each length given (tokens per pair) beside the mix (a pass carries no findings, as its schema says;
// a warn or fail 1-4 findings), live at Sonnet 4.5 and batched at Haiku 4.5, with the whole corpus's
// dollars against the issue's bounds ($100 live on Sonnet, $35 batched on Haiku).
// Then pairs per second through the live API route at concurrency 16 (no simulated clock); this figure
// is the executor's alone (in-process, no workflow): bench/sweep-throughput.ts measures the system.
// Usage: npx tsx bench/review-cost.ts [notes=40] [cli-pairs=6] [cli-bundles=2] [throughput-pairs=800] [output-tokens=40,400,1700]
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createHarnessActivities } from '../src/activities/harness/launch.js';
import { reviewPrompt } from '../src/activities/review/prompt.js';
import { noteToolLists, planCachePrefixes } from '../src/activities/review/sweep/cache-prefix.js';
import { bundleSizes, orderForCache, planUnits } from '../src/activities/review/sweep/units.js';
import { sha256 } from '../src/fs/digest.js';
import type { LaunchResult } from '../src/harness/launch-contract.js';
import { priceOf } from '../src/harness/prices.js';
import { parseProfiles } from '../src/harness/profiles.js';
import { minimumCacheableTokens } from '../src/harness/prompt-cache.js';
import { selectPairs } from '../src/review/status.js';
import type { SweepUnit } from '../src/review/sweep-types.js';
import { fakeHarnessPath } from '../src/worker.js';
import { corpusCopy } from '../test/helpers/kb.js';
import { contractProfile, harnessInstalled } from '../test/helpers/model-apis/harnesses.js';
import { reply, type Reply } from '../test/helpers/model-apis/replies.js';
import { apiReviewLaunch, type ReviewInputs } from '../test/helpers/model-apis/review-launch.js';
import { startStandIn, type StandIn } from '../test/helpers/model-apis/stand-in.js';

const [noteCount = 40, cliPairs = 6, cliBundles = 2, throughputPairs = 800] = process.argv.slice(2, 6).map(Number);
const outputLengths = (process.argv[6] ?? '40,400,1700').split(',').map(Number);
if (outputLengths.some((length) => !Number.isInteger(length) || length <= 0))
  throw new Error(`output-tokens must be positive whole numbers separated by commas, got ${process.argv[6]}`);
const CONCURRENCY = 16;
const WAVE_MS = 4000;
const WRITE_DELAY_MS = 1000;
const CORPUS_PAIRS = 14_501;
const KEY_ENV = 'COMMONPLACE_BENCH_API_KEY';
process.env[KEY_ENV] = 'stand-in-key';

// ---- the sample --------------------------------------------------------------------------------
const checkout = await corpusCopy();
const all = await selectPairs(checkout, { criteria: ['gates', 'types', 'collections'] });
const notes = [...new Set(all.map((pair) => pair.note))].sort();
const step = notes.length / Math.min(noteCount, notes.length);
const picked = new Set(Array.from({ length: Math.min(noteCount, notes.length) }, (_, index) => notes[Math.floor(index * step)]!));
const sample = all.filter((pair) => picked.has(pair.note));
const texts = new Map<string, string>();
const textOf = async (path: string) => texts.get(path) ?? texts.set(path, await readFile(join(checkout, path), 'utf8')).get(path)!;
/** A unit's inputs as a sweep's capture carries them; a note-first pair with its note's tools (`tools`, as the sweep lists them). */
const inputsOf = async (unit: SweepUnit, tools?: ReturnType<typeof noteToolLists>): Promise<ReviewInputs> => {
  const noteTools = unit.criteria.length === 1 && unit.cachePrefix === 'note' ? tools?.get(unit.note) : undefined;
  return {
    note: { path: unit.note, text: await textOf(unit.note) },
    criteria: await Promise.all(unit.criteria.map(async (criterion) => ({ id: criterion.id, path: criterion.path, text: await textOf(criterion.path) }))),
    ...(unit.cachePrefix && { cachePrefix: unit.cachePrefix }),
    ...(noteTools && { noteTools }),
  };
};
const pairUnits = planUnits(sample, 'pair');
const bundleUnits = planUnits(sample, 'bundle', await bundleSizes(checkout, sample));
console.log(
  `sample: ${picked.size} of ${notes.length} notes, ${sample.length} pairs (corpus: ${all.length}); ${pairUnits.length} pair units, ${bundleUnits.length} bundle units`,
);

// ---- a realistic structured answer --------------------------------------------------------------
// Per pair, drawn from its digest: pass 55 %, warn 30 %, fail 15 %; no findings on a pass (the answer
// schema allows none), 1–3 on a warn, 2–4 on a fail, each one sentence naming what, where and what to
// change (~25–40 words). With `fixedOutput`, each answer reports that many output tokens per pair instead.
const findingTexts = [
  'The description restates the title instead of saying what the note adds; name the mechanism the note argues for in one clause.',
  'The second paragraph cites the source by its headline only; quote the sentence the claim rests on and link it where the note first relies on it.',
  'The title is a topic ("memory in agents"), not a claim; rewrite it as the sentence the note defends, for example what changes when memory is scoped per task.',
  'The closing section repeats the opening argument almost word for word; cut it or replace it with the open question the note leaves.',
  'Three sentences in the evidence section hedge the same point ("may", "might", "could"); keep one hedge where the evidence is thin and state the rest plainly.',
  'The note links to a related note without saying why; add the relation (extends, contradicts, is an instance of) in the sentence that carries the link.',
  'The example in the middle section is from a different domain than the claim; replace it with the case from the cited study or mark it as an analogy.',
];
function answerFor(unit: SweepUnit, fixedOutput?: number): Reply {
  const perCriterion: Record<string, { verdict: string; findings: string[] }> = {};
  for (const criterion of unit.criteria) {
    const digest = Number.parseInt(sha256(`${unit.note}\0${criterion.id}`).slice(0, 8), 16);
    const roll = digest % 100;
    const verdict = roll < 55 ? 'pass' : roll < 85 ? 'warn' : 'fail';
    const count = verdict === 'pass' ? 0 : verdict === 'warn' ? 1 + ((digest >> 8) % 3) : 2 + ((digest >> 8) % 3);
    perCriterion[criterion.id] = {
      verdict: criterion.report ? 'report' : verdict,
      findings: Array.from({ length: count }, (_, index) => findingTexts[(digest + index * 3) % findingTexts.length]!),
    };
  }
  const fixed = fixedOutput !== undefined ? { usage: { inputTokens: 0, outputTokens: fixedOutput * unit.criteria.length } } : {};
  return { kind: 'review', verdict: 'pass', findings: [], perCriterion, ...fixed };
}

// ---- counting -----------------------------------------------------------------------------------
interface Tally {
  route: string;
  pairs: number;
  requests: number;
  input: number;
  cacheRead: number;
  cacheWrite: number;
  output: number;
  failed: number;
}
const tallyOf = (route: string, pairs: number, standIn: StandIn, failed: number): Tally => {
  const tally = { route, pairs, requests: standIn.requests.length, input: 0, cacheRead: 0, cacheWrite: 0, output: 0, failed };
  for (const request of standIn.requests) {
    if (!request.usage) continue;
    tally.input += request.usage.input;
    tally.cacheRead += request.usage.cacheRead;
    tally.cacheWrite += request.usage.cacheWrite;
    tally.output += request.usage.output;
  }
  return tally;
};

/** Dollars for a tally at a model's price: cached as counted, uncached (every input token at the input price), and halved for a batch. */
function dollars(tally: Tally, model: string, how: 'cached' | 'uncached' | 'batch-cached' | 'batch-uncached'): number {
  const price = priceOf(model)!;
  const cached = how === 'cached' || how === 'batch-cached';
  const input = cached
    ? tally.input * price.input + tally.cacheRead * price.cacheRead + tally.cacheWrite * price.cacheWrite
    : (tally.input + tally.cacheRead + tally.cacheWrite) * price.input;
  const total = (input + tally.output * price.output) / 1e6;
  return how.startsWith('batch') ? total / 2 : total;
}

// ---- the API routes -----------------------------------------------------------------------------
type Order = 'as selected' | 'grouped' | 'grouped, 16 lanes';
const ordered = (units: SweepUnit[], order: Order) => (order === 'as selected' ? units : orderForCache(units, order === 'grouped' ? 1 : CONCURRENCY));
const noteFirst = (units: SweepUnit[]) => units.map((unit): SweepUnit => (unit.criteria.length === 1 ? { ...unit, cachePrefix: 'note' } : unit));
const criteriaFirst = (units: SweepUnit[]) => units.map((unit): SweepUnit => (unit.criteria.length > 1 ? { ...unit, cachePrefix: 'criteria' } : unit));
/** The units as a sweep on this model prepares them: each pair's prefix chosen, grouped and dealt into lanes. */
const asPrepared = async (units: SweepUnit[], model: string) =>
  orderForCache(
    (await planCachePrefixes(checkout, units, { name: 'bench', harness: 'anthropic', model, flags: [], timeoutMs: 60_000, attempts: 1, env: {} })).units,
    CONCURRENCY,
  );

async function apiRoute(model: string, units: SweepUnit[], label: string, fixedOutput?: number): Promise<Tally> {
  const standIn = await startStandIn('anthropic');
  standIn.cache.writeDelayMs = WRITE_DELAY_MS;
  let now = 0;
  standIn.cache.now = () => now;
  let failed = 0;
  const tools = noteToolLists(units, 'anthropic');
  for (const [index, unit] of units.entries()) {
    now = Math.floor(index / CONCURRENCY) * WAVE_MS;
    standIn.script(answerFor(unit, fixedOutput));
    await apiReviewLaunch(standIn, { model, keyEnv: KEY_ENV, maxOutputTokens: 2048 }, await inputsOf(unit, tools)).catch(() => (failed += 1));
  }
  await standIn.close();
  return tallyOf(
    label,
    units.reduce((sum, unit) => sum + unit.criteria.length, 0),
    standIn,
    failed,
  );
}

// ---- the CLI routes -----------------------------------------------------------------------------
const REVIEW_TOKENS_PER_GATE = 1700;
const reviewProse = (gate: string) => {
  const paragraph = `Against ${gate}: the note's framing, evidence and links were read in full. ${findingTexts.join(' ')}\n\n`;
  return paragraph.repeat(Math.ceil((REVIEW_TOKENS_PER_GATE * 4) / paragraph.length)).slice(0, REVIEW_TOKENS_PER_GATE * 4);
};
const { launch } = createHarnessActivities({ fakeHarnessPath, heartbeatIntervalMs: 60_000 });

async function cliRoute(name: 'claude' | 'claude-lean', units: SweepUnit[], label: string): Promise<Tally | undefined> {
  if (!harnessInstalled('claude')) return undefined;
  const standIn = await startStandIn('anthropic');
  standIn.cache.countAll = true;
  let failed = 0;
  for (const unit of units) {
    const dir = await mkdtemp(join(tmpdir(), `bench-review-cost-${name}-`));
    const inputs = await inputsOf(unit);
    await mkdir(join(dir, 'inputs', 'criteria'), { recursive: true });
    await writeFile(join(dir, 'inputs', 'note.md'), inputs.note.text);
    const criterionInputs: Record<string, string> = {};
    for (const criterion of inputs.criteria) {
      const path = join('inputs', 'criteria', `${criterion.id}.md`);
      await mkdir(join(dir, path, '..'), { recursive: true });
      await writeFile(join(dir, path), criterion.text);
      criterionInputs[criterion.id] = path;
    }
    const grouping = unit.criteria.length > 1 ? 'bundle' : 'pair';
    const prompt = reviewPrompt({ unit, grouping, noteInput: join('inputs', 'note.md'), criterionInputs, output: 'review.md', findings: [] });
    const review =
      grouping === 'pair'
        ? `${reviewProse(unit.criteria[0]!.id)}\nResult: pass\n`
        : unit.criteria.map((criterion) => `## ${criterion.id}\n\n${reviewProse(criterion.id)}\nResult: pass\n`).join('\n');
    standIn.script(
      reply.read('inputs/note.md'),
      ...inputs.criteria.map((criterion) => reply.read(criterionInputs[criterion.id]!)),
      reply.write('review.md', review),
      reply.text('Done.'),
    );
    const { profile: raw } = await contractProfile(name, standIn.url, { overrides: { timeout: '5m' } });
    const profile = parseProfiles({ profiles: { [name]: raw } }, 'bench').get(name)!;
    const result = (await new MockActivityEnvironment()
      .run(launch, { launchId: `bench/${name}/${unit.key}`, profile, dir, prompt, outputs: ['review.md'] })
      .catch((error: unknown) => error)) as LaunchResult | Error;
    if (result instanceof Error || result.missing.length > 0) failed += 1;
  }
  await standIn.close();
  return tallyOf(
    label,
    units.reduce((sum, unit) => sum + unit.criteria.length, 0),
    standIn,
    failed,
  );
}

// ---- run ----------------------------------------------------------------------------------------
const models = { opus: 'claude-opus-4-6', sonnet: 'claude-sonnet-4-5', haiku: 'claude-haiku-4-5' } as const;
const orders: Order[] = ['as selected', 'grouped', 'grouped, 16 lanes'];
const rows: { tally: Tally; minimum: number; priced: (keyof typeof models)[]; prepared: boolean }[] = [];
// Every order and prefix at Sonnet 4.5 (minimum 1,024); as a sweep prepares them at Haiku 4.5, whose
// minimum Opus 4.6 shares (4,096): one run serves both.
for (const order of orders) {
  rows.push({
    tally: await apiRoute(models.sonnet, ordered(pairUnits, order), `API pair, criterion first (${order})`),
    minimum: 1024,
    priced: ['sonnet'],
    prepared: false,
  });
  rows.push({
    tally: await apiRoute(models.sonnet, ordered(noteFirst(pairUnits), order), `API pair, note first (${order})`),
    minimum: 1024,
    priced: ['sonnet'],
    prepared: false,
  });
  rows.push({
    tally: await apiRoute(models.sonnet, ordered(bundleUnits, order), `API bundle, note first (${order})`),
    minimum: 1024,
    priced: ['sonnet'],
    prepared: false,
  });
  rows.push({
    tally: await apiRoute(models.sonnet, ordered(criteriaFirst(bundleUnits), order), `API bundle, criteria first (${order})`),
    minimum: 1024,
    priced: ['sonnet'],
    prepared: false,
  });
}
for (const [model, priced] of [
  [models.sonnet, ['sonnet']],
  [models.haiku, ['opus', 'haiku']],
] as const) {
  const minimum = minimumCacheableTokens('anthropic', model)!;
  for (const [grouping, units] of [
    ['pair', pairUnits],
    ['bundle', bundleUnits],
  ] as const) {
    const prepared = await asPrepared(units, model);
    const first =
      grouping === 'bundle'
        ? prepared.some((unit) => unit.cachePrefix === 'criteria')
          ? ', criteria first'
          : ', note first'
        : prepared.some((unit) => unit.cachePrefix === 'note')
          ? ', note first'
          : ', criterion first';
    rows.push({ tally: await apiRoute(model, prepared, `API ${grouping}${first} (as a sweep prepares it)`), minimum, priced: [...priced], prepared: true });
  }
}
const cliSample = pairUnits.filter((unit, index) => index % Math.max(1, Math.floor(pairUnits.length / cliPairs)) === 0).slice(0, cliPairs);
const bundleSample = bundleUnits.filter((unit) => unit.criteria.length >= 4).slice(0, cliBundles);
const cli = [
  await cliRoute('claude', cliSample, 'claude pair'),
  await cliRoute('claude-lean', cliSample, 'claude-lean pair'),
  await cliRoute('claude', bundleSample, 'claude bundle'),
].filter((tally): tally is Tally => tally !== undefined && tally.pairs > 0);

// ---- report -------------------------------------------------------------------------------------
const k = (n: number) => (n >= 10_000 ? `${(n / 1000).toFixed(0)}k` : String(Math.round(n)));
const usd = (n: number) => (n >= 100 ? `$${n.toFixed(0)}` : n >= 1 ? `$${n.toFixed(2)}` : `$${n.toFixed(4)}`);
const share = (tally: Tally) => tally.cacheRead / Math.max(1, tally.input + tally.cacheRead + tally.cacheWrite);
console.log(`\nper pair; cached share = cache reads / all input tokens; $ per 1,000 pairs, cached (uncached)`);
console.log(
  '| route | min | pairs | req/pair | input/pair | cache read/pair | cache write/pair | output/pair | cached share | Opus 4.6 | Sonnet 4.5 | Haiku 4.5 |',
);
console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
const line = (tally: Tally, minimum: string, priced: (keyof typeof models)[] | 'all', batch: boolean) => {
  const per = (n: number) => k(n / tally.pairs);
  const price = (name: keyof typeof models) =>
    priced === 'all' || priced.includes(name)
      ? `${usd((dollars(tally, models[name], batch ? 'batch-cached' : 'cached') * 1000) / tally.pairs)} (${usd((dollars(tally, models[name], batch ? 'batch-uncached' : 'uncached') * 1000) / tally.pairs)})`
      : '';
  const failed = tally.failed > 0 ? ` [${tally.failed} failed]` : '';
  console.log(
    `| ${tally.route}${batch ? ', batch' : ''}${failed} | ${minimum} | ${tally.pairs} | ${(tally.requests / tally.pairs).toFixed(2)} | ${per(tally.input)} | ${per(tally.cacheRead)} | ${per(tally.cacheWrite)} | ${per(tally.output)} | ${(share(tally) * 100).toFixed(0)} % | ${price('opus')} | ${price('sonnet')} | ${price('haiku')} |`,
  );
};
for (const tally of cli) line(tally, '—', 'all', false);
for (const row of rows) line(row.tally, String(row.minimum), row.priced, false);
for (const row of rows.filter((each) => each.prepared)) line(row.tally, String(row.minimum), row.priced, true);

// The issue's targets at Opus 4.6: the original's $0.0962 a gate (pairs) and $0.0521 (4-gate bundles).
const best = (grouping: string, model: keyof typeof models) =>
  rows.find((row) => row.prepared && row.tally.route.startsWith(`API ${grouping}`) && row.priced.includes(model))!.tally;
console.log('\ntargets (per gate, Opus 4.6)');
for (const [grouping, original, liveShare, batchShare] of [
  ['pair', 0.0962, 1 / 3, 1 / 8],
  ['bundle', 0.0521, 2 / 3, 1 / 4],
] as const) {
  const tally = best(grouping, 'opus');
  const live = dollars(tally, models.opus, 'cached') / tally.pairs;
  const batch = dollars(tally, models.opus, 'batch-cached') / tally.pairs;
  console.log(
    `  API ${grouping}: live ${usd(live)} (target ≤ ${usd(original * liveShare)}: ${live <= original * liveShare ? 'met' : 'NOT met'}), batch+cache ${usd(batch)} (target ≤ ${usd(original * batchShare)}: ${batch <= original * batchShare ? 'met' : 'NOT met'})`,
  );
}
console.log(`\nwhole corpus (${CORPUS_PAIRS} pairs) at the best route per model, batch + cache (live + cache)`);
for (const [name, target] of [
  ['sonnet', 100],
  ['haiku', 35],
  ['opus', undefined],
] as const) {
  for (const grouping of ['pair', 'bundle']) {
    const tally = best(grouping, name);
    const per = (how: 'cached' | 'batch-cached') => (dollars(tally, models[name], how) / tally.pairs) * CORPUS_PAIRS;
    console.log(
      `  ${models[name]} ${grouping}: ${usd(per('batch-cached'))} (${usd(per('cached'))})${target !== undefined ? ` target ≤ $${target}: ${per('batch-cached') <= target ? 'met' : 'NOT met'}` : ''}; cached share ${(share(tally) * 100).toFixed(0)} %`,
    );
  }
}

// ---- output priced honestly ----------------------------------------------------------------------
{
  console.log(`\noutput length: the pair route as a sweep prepares it, whole corpus (${CORPUS_PAIRS} pairs)`);
  console.log('| answers | output/pair | Sonnet 4.5 live | Haiku 4.5 batch |');
  console.log('| --- | --- | --- | --- |');
  const sonnetUnits = await asPrepared(pairUnits, models.sonnet);
  const haikuUnits = await asPrepared(pairUnits, models.haiku);
  for (const fixed of [undefined, ...outputLengths]) {
    const label = fixed === undefined ? 'mix (pass: no findings; warn, fail: 1-4)' : `every answer ${fixed} tokens`;
    const sonnet = await apiRoute(models.sonnet, sonnetUnits, label, fixed);
    const haiku = await apiRoute(models.haiku, haikuUnits, label, fixed);
    const live = (dollars(sonnet, models.sonnet, 'cached') / sonnet.pairs) * CORPUS_PAIRS;
    const batch = (dollars(haiku, models.haiku, 'batch-cached') / haiku.pairs) * CORPUS_PAIRS;
    const failed = sonnet.failed + haiku.failed > 0 ? ` [${sonnet.failed + haiku.failed} failed]` : '';
    console.log(
      `| ${label}${failed} | ${k(sonnet.output / sonnet.pairs)} | ${usd(live)}${fixed === undefined ? ` (≤ $100: ${live <= 100 ? 'yes' : 'NO'})` : ''} | ${usd(batch)}${fixed === undefined ? ` (≤ $35: ${batch <= 35 ? 'yes' : 'NO'})` : ''} |`,
    );
  }
}

// ---- throughput (the executor alone) -----------------------------------------------------------
{
  const standIn = await startStandIn('anthropic');
  standIn.script(reply.review('warn', [findingTexts[0]!]));
  const units = orderForCache(pairUnits, CONCURRENCY).slice(0, throughputPairs);
  const inputs = await Promise.all(units.map((unit) => inputsOf(unit)));
  let next = 0;
  let failed = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < inputs.length) {
        const mine = inputs[next++]!;
        await apiReviewLaunch(standIn, { model: models.sonnet, keyEnv: KEY_ENV }, mine).catch(() => (failed += 1));
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await standIn.close();
  console.log(
    `\nlive API route at the stand-in, the executor alone (in-process; through the whole system: bench/sweep-throughput.ts): ${inputs.length} pairs at concurrency ${CONCURRENCY} in ${seconds.toFixed(1)} s: ${(inputs.length / seconds).toFixed(1)} pairs/s${failed > 0 ? ` (${failed} failed)` : ''}`,
  );
}
