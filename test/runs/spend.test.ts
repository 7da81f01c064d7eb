import { launchCost, priceOf } from '../../src/harness/prices.js';
import {
  addLaunch,
  centsUp,
  emptyTokens,
  nextCap,
  resumeCapProblem,
  settledSpendLimit,
  spendDecision,
  spendFit,
  spendLimitStop,
  type SpendTotals,
} from '../../src/runs/spend.js';
import { STOP_RULES } from '../../src/runs/stop.js';
import { formatResultFile, parseResultFile, resultSpend, type ResultRecord } from '../../src/review/result-file.js';
import { resultPath } from '../../src/review/paths.js';

const totals = (costUsd: number, launches: number, unpriced = 0): SpendTotals => ({ launches, costUsd, unpriced, tokens: emptyTokens() });

describe('the spend decision before a launch', () => {
  test.each([
    ['no cap: always go', { capUsd: undefined, totals: totals(100, 10), inFlight: 3 }, true],
    ['the first launch goes even under a tiny cap', { capUsd: 0.01, totals: totals(0, 0), inFlight: 0 }, true],
    ['launches of unknown cost give no mean: go', { capUsd: 0.01, totals: totals(0, 2, 2), inFlight: 0 }, true],
    ['spent 0.30 over 3, cap 0.40: the next (0.10) lands on the cap', { capUsd: 0.4, totals: totals(0.3, 3), inFlight: 0 }, true],
    ['spent 0.30 over 3, cap 0.39: the next would pass it', { capUsd: 0.39, totals: totals(0.3, 3), inFlight: 0 }, false],
    ['one in flight counts at the mean: 0.30 + 2 × 0.10 > 0.45', { capUsd: 0.45, totals: totals(0.3, 3), inFlight: 1 }, false],
    ['one in flight under a roomy cap: go', { capUsd: 1, totals: totals(0.3, 3), inFlight: 1 }, true],
    ['the mean is over the priced launches only', { capUsd: 0.65, totals: totals(0.6, 4, 1), inFlight: 0 }, false],
  ])('%s', (_title, input, go) => {
    expect(spendDecision(input).go).toBe(go);
  });

  test.each([
    ['no cap: the whole batch fits', { capUsd: undefined, totals: totals(0.3, 3), inFlight: 0 }, 8, 8],
    ['no launch yet to take a mean from: the whole batch fits', { capUsd: 0.01, totals: totals(0, 0), inFlight: 0 }, 8, 8],
    ['spent 0.30 over 3, cap 0.55: two fit (0.50), the third would pass it', { capUsd: 0.55, totals: totals(0.3, 3), inFlight: 0 }, 8, 2],
    ['spent 0.30 over 3, cap 0.60: exactly three land on the cap', { capUsd: 0.6, totals: totals(0.3, 3), inFlight: 0 }, 8, 3],
    ['one in flight takes a place: cap 0.60 leaves two', { capUsd: 0.6, totals: totals(0.3, 3), inFlight: 1 }, 8, 2],
    ['a roomy cap: all of a small batch fit', { capUsd: 10, totals: totals(0.3, 3), inFlight: 0 }, 8, 8],
    ['already at the cap: none fit', { capUsd: 0.3, totals: totals(0.3, 3), inFlight: 0 }, 8, 0],
  ])('a provider batch under the cap, %s', (_title, input, count, fits) => {
    const fit = spendFit(input, count);
    expect(fit.fits).toBe(fits);
    // The launches that fit each pass the launch decision; the first that does not is refused as a launch would be.
    expect(fit.refused === undefined).toBe(fits === count);
    if (fit.refused) expect(spendDecision({ ...input, inFlight: input.inFlight + fits }).go).toBe(false);
    if (fits > 0 && input.capUsd !== undefined) expect(spendDecision({ ...input, inFlight: input.inFlight + fits - 1 }).go).toBe(true);
  });

  test('a refused launch makes an operator stop that names the spend, the cap and a cap that lets one more launch go', () => {
    const decision = spendDecision({ capUsd: 0.39, totals: totals(0.3, 3), inFlight: 0 });
    if (decision.go) throw new Error('expected a stop');
    const stop = spendLimitStop(decision);
    expect(stop).toMatchObject({ kind: 'spend-limit', disposition: 'operator', spentUsd: 0.3, capUsd: 0.39 });
    expect(stop.meanUsd).toBeCloseTo(0.1);
    expect(stop.reason).toMatch(/spent \$0\.3000 of the \$0\.3900 cap/);
    expect(STOP_RULES['spend-limit'].by).toBe('resume');
  });

  test.each([
    ['a resume of another stop needs no cap', { stoppedAtCap: false, newCapUsd: undefined }, undefined],
    [
      'a spend-limit stop is not resumed without a cap',
      { stoppedAtCap: true, newCapUsd: undefined },
      /resume it with a higher --max-cost \(at least \$0\.40\)/,
    ],
    ['nor with a cap at or under the spend', { stoppedAtCap: true, newCapUsd: 0.3 }, /leaves no room/],
    ['nor with one that leaves no room for a launch at the mean', { stoppedAtCap: true, newCapUsd: 0.35 }, /give at least \$0\.40\)/],
    ['a cap with room for the next launch resumes it', { stoppedAtCap: true, newCapUsd: 0.4 }, undefined],
    ['a cap that is no positive amount is refused anywhere', { stoppedAtCap: false, newCapUsd: -1 }, /positive amount/],
  ])('%s', (_title, input, expected) => {
    const problem = resumeCapProblem({ ...input, totals: totals(0.3, 3) });
    if (expected === undefined) expect(problem).toBeUndefined();
    else expect(problem).toMatch(expected);
  });

  test.each([
    ['a least cap that rounds down at four digits ($0.305835)', 0.20389, 2],
    ['a spend of whole cents', 0.3, 3],
    ['a spend over a dollar', 1.23456, 7],
    ['a mean of a fraction of a cent', 0.0123, 41],
  ])("the stop's least cap is a figure its resume accepts, to the cent: %s", (_title, costUsd, launches) => {
    const spent = totals(costUsd, launches);
    const decision = spendDecision({ capUsd: costUsd + 1e-6, totals: spent, inFlight: 0 });
    if (decision.go) throw new Error('expected a stop');
    const figure = Number(/at least \$(\d+\.\d\d)\)$/.exec(spendLimitStop(decision).reason)?.[1]);
    expect(figure).toBe(nextCap(spent));
    expect(resumeCapProblem({ stoppedAtCap: true, totals: spent, newCapUsd: figure })).toBeUndefined();
    expect(resumeCapProblem({ stoppedAtCap: true, totals: spent, newCapUsd: figure - 0.01 })).toMatch(/leaves no room.*give at least \$\d+\.\d\d\)$/);
    expect(resumeCapProblem({ stoppedAtCap: true, totals: spent, newCapUsd: undefined })).toContain(`(at least $${figure.toFixed(2)})`);
  });

  test('a spend-limit stop read after the launches in flight at it settled names the spend then, and a least cap above it', () => {
    const decision = spendDecision({ capUsd: 0.25, totals: totals(0.1, 1), inFlight: 1 });
    if (decision.go) throw new Error('expected a stop');
    const stop = { ...spendLimitStop(decision), disposition: 'operator' as const };
    expect(stop.reason).toMatch(/^spent \$0\.1000 of the \$0\.2500 cap.*at least \$0\.26\)$/);
    const settled = settledSpendLimit(stop, totals(0.2, 2), 0.25);
    expect(settled).toMatchObject({ kind: 'spend-limit', spentUsd: 0.2, capUsd: 0.25 });
    expect(settled.reason).toMatch(/^spent \$0\.2000 of the \$0\.2500 cap; the next launch \(about \$0\.1000, the mean so far\).*at least \$0\.30\)$/);
    expect(resumeCapProblem({ stoppedAtCap: true, totals: totals(0.2, 2), newCapUsd: 0.3 })).toBeUndefined();
  });

  test('after a provider batch filled the cap at half price, the least cap named is above the cap, not the spend plus one launch under it', () => {
    // $1.00 cap: a batch's answers cost $0.60 in all; one launch at the mean ($0.10) would still fit under the cap.
    const stop = spendLimitStop({ go: false, spentUsd: 0.6, meanUsd: 0.1, estimateUsd: 1.05, capUsd: 1 });
    expect(stop.reason).toMatch(/at least \$1\.01\)$/);
    expect(resumeCapProblem({ stoppedAtCap: true, totals: totals(0.6, 6), newCapUsd: 0.9, capUsd: 1 })).toMatch(
      /not above the \$1\.00 cap .*give at least \$1\.01\)$/,
    );
    expect(resumeCapProblem({ stoppedAtCap: true, totals: totals(0.6, 6), newCapUsd: 1.01, capUsd: 1 })).toBeUndefined();
  });

  test('the suggested cap is the spend plus one mean launch, rounded up to whole cents, and a resume with it is accepted', () => {
    expect(nextCap(totals(0.3, 3))).toBe(0.4);
    expect(nextCap(totals(0.1 + 0.2, 3))).toBe(0.4);
    expect(centsUp(0.503)).toBe(0.51);
    expect(resumeCapProblem({ stoppedAtCap: true, newCapUsd: nextCap(totals(0.25, 3)), totals: totals(0.25, 3) })).toBeUndefined();
  });
});

describe('the cost of a launch', () => {
  test('the harness cost wins over the price table', () => {
    expect(launchCost({ model: 'claude-sonnet-5', usage: { inputTokens: 1_000_000, outputTokens: 0 }, costUsd: 0.5 })).toEqual({
      costUsd: 0.5,
      source: 'harness',
    });
  });

  test("an Anthropic model's cost from its tokens matches what claude reported for the same usage", () => {
    // test/fixtures/harness/claude-result-success.json: claude-sonnet-5 cost $0.0448005 for this usage.
    const cost = launchCost({
      model: 'claude-sonnet-5',
      usage: { inputTokens: 22, outputTokens: 70, cacheReadTokens: 27840, cacheWriteTokens: 9422 },
      costUsd: null,
    });
    expect(cost.source).toBe('price-table');
    expect(cost.costUsd).toBeCloseTo(0.0448005, 9);
    expect(priceOf('claude-haiku-4-5-20251001')).toEqual(priceOf('claude-haiku-4-5'));
  });

  test("an OpenAI model's cached input is priced apart from the rest of its input", () => {
    const cost = launchCost({ model: 'gpt-5.1-codex', usage: { inputTokens: 1_000_000, outputTokens: 100_000, cacheReadTokens: 800_000 }, costUsd: null });
    // 200k uncached × $1.25 + 800k cached × $0.125 + 100k out × $10, per million
    expect(cost.costUsd).toBeCloseTo(0.25 + 0.1 + 1, 9);
  });

  test("an unknown model's cost is unknown, never guessed, and the run counts it as unpriced", () => {
    expect(launchCost({ model: 'some-new-model', usage: { inputTokens: 10, outputTokens: 10 }, costUsd: null })).toEqual({ costUsd: null, source: 'unknown' });
    const sum = totals(0, 0);
    addLaunch(sum, { model: 'some-new-model', usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 3 }, costUsd: null });
    addLaunch(sum, { model: 'fake-model-1', usage: { inputTokens: 1, outputTokens: 1 }, costUsd: 0.25 });
    expect(sum).toEqual({ launches: 2, costUsd: 0.25, unpriced: 1, tokens: { input: 11, output: 6, cacheRead: 3, cacheWrite: 0 } });
  });
});

describe('a result file with its cost', () => {
  const record: ResultRecord = {
    note: 'kb/notes/a.md',
    criterion: 'prose/body-gate',
    noteSha256: 'a'.repeat(64),
    criterionSha256: 'b'.repeat(64),
    outcome: 'pass',
    profile: 'fake',
    model: 'fake-model-1',
    run: 'GS-1',
    launch: 'GS-1/u/1',
    body: 'ok\n\nResult: pass\n',
  };
  const file = resultPath(record.note, record.criterion);

  test('carries cost_usd and tokens, and reads back the same', () => {
    const spend = resultSpend({ model: 'fake-model-1', usage: { inputTokens: 300, outputTokens: 42 }, costUsd: 0.06 }, 2);
    const text = formatResultFile({ ...record, spend });
    expect(text).toContain('cost_usd: 0.03\ninput_tokens: 150\noutput_tokens: 21\ncache_read_tokens: 0\ncache_write_tokens: 0\n---');
    const parsed = parseResultFile(text, file);
    expect(parsed.ok && parsed.record.spend).toEqual({ costUsd: 0.03, inputTokens: 150, outputTokens: 21, cacheReadTokens: 0, cacheWriteTokens: 0 });
  });

  test('an unknown cost is written `unknown`', () => {
    const text = formatResultFile({ ...record, spend: resultSpend({ model: 'mystery', usage: null, costUsd: null }) });
    expect(text).toContain('cost_usd: unknown\n');
    const parsed = parseResultFile(text, file);
    expect(parsed.ok && parsed.record.spend?.costUsd).toBeNull();
  });

  test('a file written before spend was tracked still reads, and a bad spend value is a finding', () => {
    const old = parseResultFile(formatResultFile(record), file);
    expect(old.ok && old.record.spend).toBeUndefined();
    const bad = parseResultFile(
      formatResultFile({ ...record, spend: resultSpend({ model: 'x', usage: null, costUsd: 0.1 }) }).replace('input_tokens: 0', 'input_tokens: lots'),
      file,
    );
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.findings.map((finding) => finding.rule)).toEqual(['result-spend']);
  });
});
