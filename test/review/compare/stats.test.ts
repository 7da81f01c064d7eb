import { describe, expect, test } from '@jest/globals';
import {
  bandWords,
  bootstrapKappaInterval,
  cohensKappa,
  confusionMatrix,
  kappaBand,
  rawAgreement,
  seededRandom,
  type VerdictPair,
} from '../../../src/review/compare/stats.js';
import type { Verdict } from '../../../src/review/compare/types.js';

/** `count` pairs of one reference verdict and one route verdict. */
const pairs = (count: number, reference: Verdict, route: Verdict): VerdictPair[] => Array.from({ length: count }, () => ({ reference, route }));

describe('the confusion matrix', () => {
  test('counts each pair in the row of the reference verdict and the column of the route verdict', () => {
    const matrix = confusionMatrix([...pairs(3, 'pass', 'pass'), ...pairs(2, 'warn', 'fail'), ...pairs(1, 'fail', 'pass')]);
    expect(matrix).toEqual([
      [3, 0, 0],
      [0, 0, 2],
      [1, 0, 0],
    ]);
  });
});

describe("Cohen's κ and raw agreement", () => {
  // Hand computations: po = Σ diag / n, pe = Σ (row_k / n)(col_k / n), κ = (po − pe) / (1 − pe).
  test.each([
    {
      case: 'perfect agreement over two verdicts',
      matrix: [
        [5, 0, 0],
        [0, 0, 0],
        [0, 0, 5],
      ],
      raw: 1,
      kappa: 1,
    },
    {
      // po = 16/20 = 0.8; rows 10, 0, 10; columns 10, 0, 10; pe = 0.25 + 0.25 = 0.5; κ = 0.3 / 0.5
      case: 'one pair in five of each side flipped between pass and fail',
      matrix: [
        [8, 0, 2],
        [0, 0, 0],
        [2, 0, 8],
      ],
      raw: 0.8,
      kappa: 0.6,
    },
    {
      // po = 9/12 = 0.75; rows 6, 3, 3; columns 6, 4, 2; pe = (36 + 12 + 6) / 144 = 0.375; κ = 0.375 / 0.625
      case: 'three verdicts with scattered disagreement',
      matrix: [
        [5, 1, 0],
        [1, 2, 0],
        [0, 1, 2],
      ],
      raw: 0.75,
      kappa: 0.6,
    },
    {
      // po = 0.5; rows 10, 10; columns 10, 10; pe = 0.5; κ = 0
      case: 'agreement exactly at chance',
      matrix: [
        [5, 0, 5],
        [0, 0, 0],
        [5, 0, 5],
      ],
      raw: 0.5,
      kappa: 0,
    },
    {
      // po = 0; rows 5, 5; columns 5, 5; pe = 0.5; κ = −0.5 / 0.5
      case: 'a route that always says the opposite',
      matrix: [
        [0, 0, 5],
        [0, 0, 0],
        [5, 0, 0],
      ],
      raw: 0,
      kappa: -1,
    },
  ])('$case gives raw agreement $raw and κ $kappa', ({ matrix, raw, kappa }) => {
    expect(rawAgreement(matrix)).toBeCloseTo(raw, 12);
    expect(cohensKappa(matrix)).toBeCloseTo(kappa, 12);
  });

  test('a route that always says pass has κ 0 however high its raw agreement', () => {
    // 18 of 20 reference verdicts are pass: raw agreement 0.9, and κ = (20·18 − 18·20) / (400 − 18·20) = 0.
    const matrix = confusionMatrix([...pairs(18, 'pass', 'pass'), ...pairs(1, 'warn', 'pass'), ...pairs(1, 'fail', 'pass')]);
    expect(rawAgreement(matrix)).toBeCloseTo(0.9, 12);
    expect(cohensKappa(matrix)).toBe(0);
  });

  test('κ is undefined when both sides give one and the same verdict throughout', () => {
    expect(cohensKappa(confusionMatrix(pairs(7, 'pass', 'pass')))).toBeNull();
  });

  test('κ and raw agreement are undefined without pairs', () => {
    expect(cohensKappa(confusionMatrix([]))).toBeNull();
    expect(rawAgreement(confusionMatrix([]))).toBeNull();
  });
});

describe('the bootstrap interval of κ', () => {
  const flipped = [...pairs(8, 'pass', 'pass'), ...pairs(2, 'pass', 'fail'), ...pairs(2, 'fail', 'pass'), ...pairs(8, 'fail', 'fail')];

  test('the same seed gives the same interval and another seed another', () => {
    const first = bootstrapKappaInterval(flipped, { seed: 7 });
    expect(bootstrapKappaInterval(flipped, { seed: 7 })).toEqual(first);
    expect(bootstrapKappaInterval(flipped, { seed: 8 })).not.toEqual(first);
  });

  test('the interval of a κ of 0.6 on 20 pairs contains it and is wider than 0.3', () => {
    const [lower, upper] = bootstrapKappaInterval(flipped, { seed: 7 }) ?? [NaN, NaN];
    expect(lower).toBeLessThan(0.6);
    expect(upper).toBeGreaterThan(0.6);
    expect(upper - lower).toBeGreaterThan(0.3);
    expect(lower).toBeGreaterThanOrEqual(-1);
    expect(upper).toBeLessThanOrEqual(1);
  });

  test('perfect agreement over two verdicts has the interval [1, 1]', () => {
    expect(bootstrapKappaInterval([...pairs(10, 'pass', 'pass'), ...pairs(10, 'fail', 'fail')], { seed: 1 })).toEqual([1, 1]);
  });

  test('a route that always says pass has the interval [0, 0]', () => {
    expect(bootstrapKappaInterval([...pairs(12, 'pass', 'pass'), ...pairs(8, 'fail', 'pass')], { seed: 3 })).toEqual([0, 0]);
  });

  test('the interval is null when κ is undefined in most resamples', () => {
    expect(bootstrapKappaInterval(pairs(5, 'warn', 'warn'), { seed: 1 })).toBeNull();
    expect(bootstrapKappaInterval([], { seed: 1 })).toBeNull();
  });

  test('the default number of resamples is 1,000', () => {
    expect(bootstrapKappaInterval(flipped, { seed: 7 })).toEqual(bootstrapKappaInterval(flipped, { seed: 7, resamples: 1000 }));
    expect(bootstrapKappaInterval(flipped, { seed: 7, resamples: 200 })).not.toEqual(bootstrapKappaInterval(flipped, { seed: 7 }));
  });
});

describe('the seeded generator and the bands', () => {
  test('the generator gives the same floats in [0, 1) for the same seed', () => {
    const a = seededRandom(42);
    const b = seededRandom(42);
    const drawn = Array.from({ length: 100 }, () => a());
    expect(Array.from({ length: 100 }, () => b())).toEqual(drawn);
    expect(drawn.every((x) => x >= 0 && x < 1)).toBe(true);
  });

  test.each([
    { kappa: 0.7, band: 'gate' },
    { kappa: 0.69, band: 'monitor' },
    { kappa: 0.4, band: 'monitor' },
    { kappa: 0.39, band: 'unusable' },
    { kappa: null, band: 'undefined' },
  ])('κ $kappa falls in the band $band', ({ kappa, band }) => {
    expect(kappaBand(kappa)).toBe(band);
    expect(bandWords(kappaBand(kappa)).length).toBeGreaterThan(0);
  });
});
