// The estimate's arithmetic (src/runs/estimate.ts): what reads from the cache, what a route costs live and
// batched, how a CLI route and an analysis are counted, and the one line a started run prints.
import { launchCost } from '../../src/harness/prices.js';
import {
  API_OUTPUT_DEFAULT,
  cliDefault,
  estimateAnalysis,
  estimateApiRoute,
  estimateCliRoute,
  estimateLine,
  recordedBasis,
  type EstimateRoute,
  type EstimateUnit,
} from '../../src/runs/estimate.js';

const route = (overrides: Partial<EstimateRoute> = {}): EstimateRoute => ({
  name: 'r',
  profile: 'r',
  harness: 'anthropic',
  model: 'claude-sonnet-4-5',
  grouping: 'pair',
  batch: false,
  concurrency: 1,
  minimumCacheable: 1024,
  ...overrides,
});
/** `count` units sharing one prefix of `prefix` tokens, each `total` tokens in all. */
const sharing = (count: number, prefix: number, total: number, key = 'shared'): EstimateUnit[] =>
  Array.from({ length: count }, () => ({ criteria: 1, inputTokens: total, prefix: { key, tokens: prefix } }));

describe('a model-API route', () => {
  test('asked one at a time, units sharing a prefix write it once and read it after', () => {
    const estimate = estimateApiRoute(route(), sharing(4, 2000, 2500), API_OUTPUT_DEFAULT);
    expect(estimate.tokens).toEqual({ uncached: 4 * 500, cacheRead: 3 * 2000, cacheWrite: 2000, output: 4 * 52 });
    expect([estimate.requests, estimate.units, estimate.pairs]).toEqual([4, 4, 4]);
  });

  test('units sent in the same wave each write the prefix; a prefix under the minimum is neither written nor read', () => {
    expect(estimateApiRoute(route({ concurrency: 4 }), sharing(4, 2000, 2500), API_OUTPUT_DEFAULT).tokens).toMatchObject({ cacheRead: 0, cacheWrite: 8000 });
    expect(estimateApiRoute(route(), sharing(4, 900, 1400), API_OUTPUT_DEFAULT).tokens).toMatchObject({ uncached: 5600, cacheRead: 0, cacheWrite: 0 });
  });

  test('a child batch starts a new wave: its first units read what the batch before wrote', () => {
    const units = sharing(4, 2000, 2500);
    expect(estimateApiRoute(route({ concurrency: 2, batchSize: 2 }), units, API_OUTPUT_DEFAULT).tokens).toMatchObject({ cacheRead: 4000, cacheWrite: 4000 });
  });

  test('OpenAI counts no cache writes: the first request pays its prefix as input', () => {
    const estimate = estimateApiRoute(route({ harness: 'openai', model: 'gpt-5-mini' }), sharing(3, 2000, 2500), API_OUTPUT_DEFAULT);
    expect(estimate.tokens).toEqual({ uncached: 3 * 500 + 2000, cacheRead: 4000, cacheWrite: 0, output: 3 * 52 });
  });

  test('dollars live are the tokens at the price table, batched half of them; an unknown model is unpriced', () => {
    const estimate = estimateApiRoute(route(), sharing(2, 2000, 2500), API_OUTPUT_DEFAULT);
    const usage = { inputTokens: 1000, outputTokens: 104, cacheReadTokens: 2000, cacheWriteTokens: 2000 };
    const live = launchCost({ model: 'claude-sonnet-4-5', usage, costUsd: null }).costUsd!;
    expect(estimate.dollars.live).toBeCloseTo(live, 10);
    expect(estimate.dollars.batch).toBeCloseTo(live / 2, 10);
    expect(estimateApiRoute(route({ model: 'no-such-model' }), sharing(2, 2000, 2500), API_OUTPUT_DEFAULT).dollars).toEqual({ live: null, batch: null });
  });

  test('the output a pair is the recorded mean when results were recorded, and says so; else the named default', () => {
    const recorded = recordedBasis(
      [
        { inputTokens: 10, outputTokens: 30, cacheReadTokens: 0, cacheWriteTokens: 0 },
        { inputTokens: 10, outputTokens: 50, cacheReadTokens: 0, cacheWriteTokens: 0 },
      ],
      'results of model claude-sonnet-4-5',
    )!;
    const estimate = estimateApiRoute(route(), sharing(2, 2000, 2500), recorded);
    expect(estimate.tokens.output).toBe(80);
    expect(estimate.basis).toContain('output: 40 tokens a pair, the mean of 2 recorded results');
    expect(estimateApiRoute(route(), sharing(2, 2000, 2500), API_OUTPUT_DEFAULT).basis).toContain(
      'output: 52 tokens a pair (default: bench/review-cost.ts structured answers)',
    );
    expect(recordedBasis([], 'none')).toBeUndefined();
  });
});

describe('a CLI route', () => {
  test('claude: criteria + 3 turns and 2 side requests a launch; an alias model is priced as the model it stands for', () => {
    const estimate = estimateCliRoute(
      route({ harness: 'claude', model: 'sonnet', concurrency: 2 }),
      [{ criteria: 1 }, { criteria: 5 }],
      cliDefault('claude', 'pair', false),
    );
    expect(estimate.requests).toBe(6 + 10);
    expect(estimate.pricedAs).toBe('claude-sonnet-5');
    expect(estimate.dollars.live).toBeGreaterThan(0);
    expect(estimate.dollars.batch).toBeNull();
    expect(estimate.basis[0]).toMatch(/\(default: bench\/review-cost\.ts claude pair\)$/);
  });

  test('the fake harness is unpriced and costs no tokens by default', () => {
    const estimate = estimateCliRoute(route({ harness: 'fake', model: undefined }), [{ criteria: 1 }], cliDefault('fake', 'pair', false));
    expect(estimate.tokens).toEqual({ uncached: 0, cacheRead: 0, cacheWrite: 0, output: 0 });
    expect(estimate.dollars).toEqual({ live: null, batch: null });
  });
});

test('an analysis is one launch per role, its lens reports in parallel', () => {
  const estimate = estimateAnalysis(
    route({ harness: 'claude', model: 'sonnet', grouping: 'launch' }),
    { roles: 11, parallel: 3, attempts: 30 },
    { input: 0, cacheRead: 1000, cacheWrite: 100, output: 10, from: 'default', samples: 0, source: 'test' },
  );
  expect([estimate.units, estimate.tokens.cacheRead, estimate.tokens.output]).toEqual([11, 11_000, 110]);
  expect(estimate.basis[0]).toBe('launches: one per role (11) when every member passes first time; up to 30 with every attempt spent');
  expect(estimate.basis[2]).toMatch(/^time: 9 stages one after another/);
});

test("a started run's estimate is one line naming each route", () => {
  const one = estimateApiRoute(route({ name: 'a:pair' }), sharing(2, 2000, 2500), API_OUTPUT_DEFAULT);
  const two = estimateApiRoute(route({ name: 'b:bundle:batch', batch: true }), sharing(2, 2000, 2500), API_OUTPUT_DEFAULT);
  const line = estimateLine({ kind: 'compare', routes: [one, two] });
  expect(line.split('\n')).toHaveLength(1);
  expect(line).toMatch(
    /^estimate: a:pair: 2 pairs, 2 units, 2 requests, input 5,000 tokens \(2,000 cached, 2,000 written, 1,000 not\), output 104, \$\d\.\d{4} live/,
  );
  expect(line).toMatch(/; b:bundle:batch: .* batched \(\$\d\.\d{4} live\), within 24 h \(provider batches\)$/);
});
