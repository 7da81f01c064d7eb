/**
 * What a sweep, a compare run's routes or an analysis will cost and how long it will take, before
 * anything starts: requests, input tokens (uncached, read from the prompt cache, written to it),
 * output tokens, dollars live and with provider batches, and time, per route. The caller reads the
 * checkout (the units a run would ask, their requests' sizes, the recorded results' tokens) and hands
 * them in; this module only counts. docs/real-kb.md says what each figure rests on.
 *
 * PURE MODULE: arithmetic over what the caller read; no I/O.
 */
import { BATCH_DISCOUNT, launchCost, priceOf } from '../harness/prices.js';
import type { HarnessName } from '../harness/profiles.js';
import type { TokenUsage } from '../harness/report.js';

/** One unit of a model-API route as its request will be sent: its tokens, and the prefix it puts first for the cache. */
export interface EstimateUnit {
  /** Pairs the unit answers (1 for a pair, the bundle's criteria for a bundle). */
  criteria: number;
  /** Every input token of its request (the prefix included), as the provider counts them. */
  inputTokens: number;
  /** The cached prefix: what identifies it (equal prefixes share one cache entry) and its tokens. */
  prefix?: { key: string; tokens: number };
}

/** Tokens per pair (or per launch, for an analysis) from recorded runs, or the stated default. */
export interface TokenBasis {
  /** Uncached input, cache reads, cache writes: used for CLI launches (an API route counts its requests' own input). */
  input: number;
  cacheRead: number;
  cacheWrite: number;
  output: number;
  /** `recorded`: the mean over `samples` recorded results (or launches); `default`: `source` names where the figure comes from. */
  from: 'recorded' | 'default';
  samples: number;
  source: string;
}

/** A route as the estimate sees it. */
export interface EstimateRoute {
  /** The route's name (a sweep: its profile; a compare run: `profile:grouping[:batch]`). */
  name: string;
  profile: string;
  harness: HarnessName;
  model: string | undefined;
  grouping: 'pair' | 'bundle' | 'launch';
  /** Asked as provider batches (half price, results within 24 h). */
  batch: boolean;
  concurrency: number;
  /** Units per child batch workflow: each batch starts its launches afresh (waves restart). */
  batchSize?: number;
  /** The model's minimum cacheable prefix, in tokens (model-API routes). */
  minimumCacheable?: number;
  /** Anthropic `cache-ttl: 1h` writes cost 2× input instead of 1.25×. */
  cacheTtl?: '5m' | '1h';
  /** A claude profile run with `--bare` (claude-lean): a tenth of the fixed context per turn. */
  lean?: boolean;
}

export interface RouteEstimate {
  route: string;
  profile: string;
  harness: HarnessName;
  model: string | null;
  /** The model the price table priced it as, when it differs (an alias such as `sonnet`). */
  pricedAs?: string;
  grouping: EstimateRoute['grouping'];
  batch: boolean;
  pairs: number;
  units: number;
  requests: number;
  tokens: { uncached: number; cacheRead: number; cacheWrite: number; output: number };
  /** US dollars; null when the model is not in the price table (the fake harness, an unknown model). */
  dollars: { live: number | null; batch: number | null };
  /** Wall time of the live run at its concurrency, in seconds; with `batch`, the provider's window applies instead. */
  seconds: number;
  /** What the figures rest on, each a short clause (a default is named as one). */
  basis: string[];
}

export interface Estimate {
  kind: 'sweep' | 'compare' | 'analysis';
  routes: RouteEstimate[];
}

/**
 * Model aliases a CLI profile may name (claude's `sonnet`), priced as the model they stand for.
 * Every Sonnet and Haiku in the table costs the same; an `opus` alias is priced as the newest Opus.
 */
export const MODEL_ALIASES: Readonly<Record<string, string>> = { sonnet: 'claude-sonnet-5', opus: 'claude-opus-5', haiku: 'claude-haiku-4-5' };

/** Seconds one model-API request takes, a stated default (a structured review of ~50 output tokens). */
export const API_REQUEST_SECONDS = 5;
/** Seconds one CLI turn takes, a stated default: a pair review (4 turns) is a minute. */
export const CLI_TURN_SECONDS = 15;
/** Seconds one fake-harness launch takes through the launch activity (docs/performance.md, launch overhead: 179 ms median). */
export const FAKE_LAUNCH_SECONDS = 0.2;
/** Turns of an analysis launch, a stated default (an agent reading a source tree and writing a report). */
export const ANALYSIS_TURNS = 30;

/**
 * Output tokens per pair of a model-API review when no run was recorded: bench/review-cost.ts's
 * structured answers (a verdict and 0–4 one-sentence findings: 52 a pair).
 */
export const API_OUTPUT_DEFAULT: TokenBasis = {
  input: 0,
  cacheRead: 0,
  cacheWrite: 0,
  output: 52,
  from: 'default',
  samples: 0,
  source: 'bench/review-cost.ts structured answers',
};

/**
 * Tokens per pair of a CLI review when no run of the profile was recorded: bench/review-cost.ts
 * (claude through the launch activity: read the note and each criterion, write, answer; ~1,770 output
 * tokens a gate, the original's telemetry) and bench/launch-requests.ts's request bytes for codex and
 * pi, whose cache share was not measured (priced uncached: an upper bound).
 */
export function cliDefault(harness: HarnessName, grouping: 'pair' | 'bundle', lean: boolean): TokenBasis {
  const basis = (input: number, cacheRead: number, cacheWrite: number, source: string): TokenBasis => ({
    input,
    cacheRead,
    cacheWrite,
    output: 1770,
    from: 'default',
    samples: 0,
    source,
  });
  if (harness === 'claude' && lean)
    return grouping === 'pair'
      ? basis(692, 7862, 5999, 'bench/review-cost.ts claude-lean pair')
      : basis(383, 4356, 3324, 'bench/review-cost.ts claude-lean pair × launch-requests bundle ratio');
  if (harness === 'claude')
    return grouping === 'pair' ? basis(0, 36000, 12000, 'bench/review-cost.ts claude pair') : basis(0, 21000, 5002, 'bench/review-cost.ts claude bundle');
  if (harness === 'codex') return basis(grouping === 'pair' ? 49100 : 21550, 0, 0, 'bench/launch-requests.ts codex bytes, uncached');
  if (harness === 'pi') return basis(grouping === 'pair' ? 14950 : 7775, 0, 0, 'bench/launch-requests.ts pi bytes, uncached');
  return { ...basis(0, 0, 0, 'the fake harness reports what its scenario says'), output: 0 };
}

/** Tokens of one analysis launch when no analysis run was recorded: ANALYSIS_TURNS turns at claude's measured fixed context, cached as its pair launches are. */
export const ANALYSIS_DEFAULT: TokenBasis = {
  input: 0,
  cacheRead: 210_000,
  cacheWrite: 70_000,
  output: 8000,
  from: 'default',
  samples: 0,
  source: `${ANALYSIS_TURNS} turns at claude's fixed context (bench/launch-requests.ts), 8,000 output tokens`,
};

/** The price table's model for a profile's model, aliases resolved. */
function pricedModel(model: string | undefined): { model: string | null; pricedAs?: string } {
  if (model === undefined) return { model: null };
  if (priceOf(model)) return { model };
  const alias = MODEL_ALIASES[model.trim().toLowerCase()];
  return alias ? { model, pricedAs: alias } : { model };
}

/** Dollars of these tokens at the model's price, in the provider's own counting; null when unpriced. */
function dollarsOf(harness: HarnessName, model: string | null, tokens: RouteEstimate['tokens'], hourWrites: boolean): number | null {
  if (model === null || priceOf(model) === undefined) return null;
  const includesRead = priceOf(model)!.inputIncludesCacheRead;
  const usage: TokenUsage = {
    inputTokens: includesRead ? tokens.uncached + tokens.cacheRead : tokens.uncached,
    outputTokens: tokens.output,
    cacheReadTokens: tokens.cacheRead,
    cacheWriteTokens: tokens.cacheWrite,
    ...(hourWrites && harness === 'anthropic' && { cacheWrite1hTokens: tokens.cacheWrite }),
  };
  return launchCost({ model, usage, costUsd: null }).costUsd;
}

/** What a route's estimate counted, before its model is priced; `api` (a model-API route) has a provider-batch price, and maybe hour-long cache writes. */
type Figures = Omit<RouteEstimate, 'route' | 'profile' | 'harness' | 'model' | 'pricedAs' | 'dollars'> & { api?: { hourWrites: boolean } };

/** The route's estimate: its figures, and its model priced (aliases resolved) live and, on a model API, at the provider-batch discount. */
function routeEstimateOf(route: EstimateRoute, { api, seconds, basis, ...counted }: Figures): RouteEstimate {
  const { model, pricedAs } = pricedModel(route.model);
  const live = dollarsOf(route.harness, pricedAs ?? model, counted.tokens, api?.hourWrites ?? false);
  const dollars = { live, batch: live === null || api === undefined ? null : live * BATCH_DISCOUNT };
  return { route: route.name, profile: route.profile, harness: route.harness, model, ...(pricedAs && { pricedAs }), ...counted, dollars, seconds, basis };
}

/** A basis's tokens times a count of pairs (or launches). */
const tokensOf = (basis: TokenBasis, count: number): RouteEstimate['tokens'] => ({
  uncached: Math.round(basis.input * count),
  cacheRead: Math.round(basis.cacheRead * count),
  cacheWrite: Math.round(basis.cacheWrite * count),
  output: Math.round(basis.output * count),
});

/** The wave each unit goes out in: `concurrency` at a time, in the order the run asks them, each child batch starting a new wave. */
function wavesOf(count: number, concurrency: number, batchSize: number | undefined): number[] {
  const size = batchSize ?? Math.max(1, count);
  const per = Math.max(1, concurrency);
  const waves: number[] = [];
  let base = 0;
  for (let from = 0; from < count; from += size) {
    const length = Math.min(size, count - from);
    for (let index = 0; index < length; index++) waves.push(base + Math.floor(index / per));
    base += Math.ceil(length / per);
  }
  return waves;
}

/**
 * Which units read their prefix from the cache: a prefix at or above the minimum is written by the
 * first wave that sends it (by every unit of that wave that sends it) and read by every later one.
 */
function cacheSplit(units: readonly EstimateUnit[], waves: readonly number[], minimum: number | undefined): { read: number; write: number } {
  const writtenIn = new Map<string, number>();
  let read = 0;
  let write = 0;
  units.forEach((unit, index) => {
    const wave = waves[index]!;
    if (!unit.prefix || minimum === undefined || unit.prefix.tokens < minimum) return;
    const first = writtenIn.get(unit.prefix.key);
    if (first !== undefined && first < wave) read += unit.prefix.tokens;
    else {
      write += unit.prefix.tokens;
      if (first === undefined) writtenIn.set(unit.prefix.key, wave);
    }
  });
  return { read, write };
}

/** A model-API route: one request a unit, its input from the units' own requests, its output from `output` per pair. */
export function estimateApiRoute(route: EstimateRoute, units: readonly EstimateUnit[], output: TokenBasis): RouteEstimate {
  const pairs = units.reduce((sum, unit) => sum + unit.criteria, 0);
  const input = units.reduce((sum, unit) => sum + unit.inputTokens, 0);
  const waves = wavesOf(units.length, route.concurrency, route.batchSize);
  const { read, write } = cacheSplit(units, waves, route.minimumCacheable);
  // OpenAI reports no cache writes: a prefix it caches costs input the first time.
  const cacheWrite = route.harness === 'openai' ? 0 : write;
  const tokens = { uncached: input - read - cacheWrite, cacheRead: read, cacheWrite, output: Math.round(output.output * pairs) };
  return routeEstimateOf(route, {
    grouping: route.grouping,
    batch: route.batch,
    pairs,
    units: units.length,
    requests: units.length,
    tokens,
    api: { hourWrites: route.cacheTtl === '1h' },
    seconds: (waves.length === 0 ? 0 : waves.at(-1)! + 1) * API_REQUEST_SECONDS,
    basis: [
      'input: the requests as the executor builds them, a token a quarter of their bytes',
      `cache: a prefix of ${route.minimumCacheable ?? '?'}+ tokens written once, read by the units asked after it`,
      outputBasis(output),
      `time: ${API_REQUEST_SECONDS} s a request (default) at concurrency ${route.concurrency}`,
    ],
  });
}

const outputBasis = (basis: TokenBasis) =>
  basis.from === 'recorded'
    ? `output: ${Math.round(basis.output)} tokens a pair, the mean of ${basis.samples} recorded results`
    : `output: ${Math.round(basis.output)} tokens a pair (default: ${basis.source})`;

/** A CLI route: launches of the profile's CLI, each pair's tokens from recorded results of the profile, or the default. */
export function estimateCliRoute(route: EstimateRoute, units: readonly { criteria: number }[], basis: TokenBasis): RouteEstimate {
  const pairs = units.reduce((sum, unit) => sum + unit.criteria, 0);
  // A launch reads its note and each criterion, writes, answers; claude adds a connectivity check and a title call.
  const turns = (unit: { criteria: number }) => unit.criteria + 3;
  const requests = units.reduce((sum, unit) => sum + turns(unit) + (route.harness === 'claude' ? 2 : 0), 0);
  const concurrency = Math.max(1, route.concurrency);
  const perLaunch = (unit: { criteria: number }) => (route.harness === 'fake' ? FAKE_LAUNCH_SECONDS : turns(unit) * CLI_TURN_SECONDS);
  return routeEstimateOf(route, {
    grouping: route.grouping,
    batch: false,
    pairs,
    units: units.length,
    requests: route.harness === 'fake' ? units.length : requests,
    tokens: tokensOf(basis, pairs),
    seconds: units.reduce((sum, unit) => sum + perLaunch(unit), 0) / concurrency,
    basis: [
      basis.from === 'recorded'
        ? `tokens: the mean a pair of ${basis.samples} recorded results of profile ${route.profile}`
        : `tokens: ${Math.round(basis.input + basis.cacheRead + basis.cacheWrite)} input and ${basis.output} output a pair (default: ${basis.source})`,
      route.harness === 'fake'
        ? `time: ${FAKE_LAUNCH_SECONDS} s a launch at concurrency ${concurrency}`
        : `time: ${CLI_TURN_SECONDS} s a turn (default), ${route.harness === 'claude' ? 'criteria + 3 turns and 2 side requests' : 'criteria + 3 turns'} a launch, at concurrency ${concurrency}`,
    ],
  });
}

/** An analysis: one launch per role of the plan when every member is accepted first time; the lens reports run in parallel. */
export function estimateAnalysis(route: EstimateRoute, plan: { roles: number; parallel: number; attempts: number }, basis: TokenBasis): RouteEstimate {
  const launches = plan.roles;
  const stages = launches - Math.max(0, plan.parallel - 1);
  const fake = route.harness === 'fake';
  return routeEstimateOf(route, {
    grouping: 'launch',
    batch: false,
    pairs: 0,
    units: launches,
    requests: fake ? launches : launches * ANALYSIS_TURNS,
    tokens: tokensOf(basis, launches),
    seconds: stages * (fake ? FAKE_LAUNCH_SECONDS : ANALYSIS_TURNS * CLI_TURN_SECONDS),
    basis: [
      `launches: one per role (${plan.roles}) when every member passes first time; up to ${plan.attempts} with every attempt spent`,
      basis.from === 'recorded' ? `tokens: the mean a launch of ${basis.samples} recorded analysis launches` : `tokens a launch (default: ${basis.source})`,
      `time: ${stages} stages one after another, ${fake ? `${FAKE_LAUNCH_SECONDS} s` : `${ANALYSIS_TURNS} turns × ${CLI_TURN_SECONDS} s`} each (default)`,
    ],
  });
}

/** Mean tokens per pair over recorded results' spend (each result's share of its launch); undefined when there are none. */
export function recordedBasis(
  spends: readonly { inputTokens: number; outputTokens: number; cacheReadTokens: number; cacheWriteTokens: number }[],
  source: string,
): TokenBasis | undefined {
  if (spends.length === 0) return undefined;
  const mean = (pick: (spend: (typeof spends)[number]) => number) => spends.reduce((sum, spend) => sum + pick(spend), 0) / spends.length;
  return {
    input: mean((spend) => spend.inputTokens),
    cacheRead: mean((spend) => spend.cacheReadTokens),
    cacheWrite: mean((spend) => spend.cacheWriteTokens),
    output: mean((spend) => spend.outputTokens),
    from: 'recorded',
    samples: spends.length,
    source,
  };
}

const whole = (n: number) => Math.round(n).toLocaleString('en-US');
const usd = (n: number | null) => (n === null ? 'unpriced' : `$${n < 10 ? n.toFixed(4) : n.toFixed(2)}`);

/** A duration for a person: seconds, minutes or hours. */
export function duration(seconds: number): string {
  if (seconds < 90) return `${Math.round(seconds)} s`;
  if (seconds < 90 * 60) return `${Math.round(seconds / 60)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}

/** One route in one line: the figures a started run's first line repeats. */
export function routeLine(route: RouteEstimate): string {
  const t = route.tokens;
  const pairs = route.grouping === 'launch' ? '' : `${whole(route.pairs)} pairs, `;
  const dollars = route.batch
    ? `${usd(route.dollars.batch)} batched (${usd(route.dollars.live)} live)`
    : `${usd(route.dollars.live)} live${route.dollars.batch !== null ? ` (${usd(route.dollars.batch)} batched)` : ''}`;
  const time = route.batch ? 'within 24 h (provider batches)' : `~${duration(route.seconds)}`;
  return (
    `${route.route}: ${pairs}${whole(route.units)} ${route.grouping === 'launch' ? 'launches' : 'units'}, ${whole(route.requests)} requests, ` +
    `input ${whole(t.uncached + t.cacheRead + t.cacheWrite)} tokens (${whole(t.cacheRead)} cached, ${whole(t.cacheWrite)} written, ${whole(t.uncached)} not), ` +
    `output ${whole(t.output)}, ${dollars}, ${time}`
  );
}

/** The estimate as one line: a started run's first line. */
export function estimateLine(estimate: Estimate): string {
  return `estimate: ${estimate.routes.map(routeLine).join('; ')}`;
}

/** The estimate for `--estimate`: each route's line, then what its figures rest on. */
export function estimateText(estimate: Estimate): string {
  const lines = [`estimate of this ${estimate.kind}, nothing started:`];
  for (const route of estimate.routes) {
    lines.push(`  ${routeLine(route)}`);
    if (route.pricedAs) lines.push(`    priced as ${route.pricedAs} (the profile names ${route.model})`);
    for (const clause of route.basis) lines.push(`    ${clause}`);
  }
  return lines.join('\n');
}
