/** A compare report's figures for one route against one reference; the bootstrap is seeded, so a seed gives one interval (docs/review-compare.md). PURE MODULE. */
import { GATE_KAPPA, MIN_KAPPA_PAIRS, MONITOR_KAPPA, verdicts, type Agreement, type ConfusionMatrix, type Verdict } from './types.js';

export interface VerdictPair {
  reference: Verdict;
  route: Verdict;
}

export function confusionMatrix(pairs: readonly VerdictPair[]): ConfusionMatrix {
  return verdicts.map((reference) => verdicts.map((route) => pairs.filter((pair) => pair.reference === reference && pair.route === route).length));
}

const cell = (matrix: ConfusionMatrix, i: number, j: number): number => matrix[i]?.[j] ?? 0;
const total = (matrix: ConfusionMatrix): number => matrix.reduce((sum, row) => sum + row.reduce((a, b) => a + b, 0), 0);
const diagonal = (matrix: ConfusionMatrix): number => matrix.reduce((sum, _row, i) => sum + cell(matrix, i, i), 0);

export function rawAgreement(matrix: ConfusionMatrix): number | null {
  const n = total(matrix);
  return n === 0 ? null : diagonal(matrix) / n;
}

/**
 * Cohen's κ = (po − pe) / (1 − pe), in integers so that exact cases stay exact:
 * κ = (n·Σ diag − Σ row·col) / (n² − Σ row·col). Null when n = 0 or pe = 1 (both sides used one
 * and the same single verdict throughout: chance explains everything, κ is undefined).
 */
export function cohensKappa(matrix: ConfusionMatrix): number | null {
  const n = total(matrix);
  if (n === 0) return null;
  const rows = matrix.map((row) => row.reduce((a, b) => a + b, 0));
  const columns = matrix.map((_, j) => matrix.reduce((sum, _row, i) => sum + cell(matrix, i, j), 0));
  const chance = rows.reduce((sum, row, k) => sum + row * (columns[k] ?? 0), 0);
  if (chance === n * n) return null;
  return (n * diagonal(matrix) - chance) / (n * n - chance);
}

/** mulberry32: floats in [0, 1), the same sequence for the same seed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** FNV-1a, to give each route, reference and criterion its own stream from one seed. */
export function stringSeed(text: string, seed = 0): number {
  let hash = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

export interface BootstrapOptions {
  seed: number;
  /** Default 1,000. */
  resamples?: number;
  /** Default 0.95. */
  level?: number;
}

export const DEFAULT_RESAMPLES = 1000;

/** Percentile bootstrap: the lower bound at ⌊q·m⌋, the upper at ⌈q·m⌉ − 1 of the m defined κs; null when fewer than half are defined. */
export function bootstrapKappaInterval(pairs: readonly VerdictPair[], options: BootstrapOptions): [number, number] | null {
  const resamples = options.resamples ?? DEFAULT_RESAMPLES;
  const level = options.level ?? 0.95;
  const n = pairs.length;
  if (n === 0 || resamples <= 0) return null;
  const random = seededRandom(options.seed);
  const cells = pairs.map((pair) => verdicts.indexOf(pair.reference) * verdicts.length + verdicts.indexOf(pair.route));
  const kappas: number[] = [];
  for (let r = 0; r < resamples; r += 1) {
    const counts = new Array<number>(verdicts.length * verdicts.length).fill(0);
    for (let i = 0; i < n; i += 1) {
      const index = cells[Math.floor(random() * n)] ?? 0;
      counts[index] = (counts[index] ?? 0) + 1;
    }
    const kappa = cohensKappa(verdicts.map((_, row) => counts.slice(row * verdicts.length, (row + 1) * verdicts.length)));
    if (kappa !== null) kappas.push(kappa);
  }
  if (kappas.length * 2 < resamples) return null;
  kappas.sort((a, b) => a - b);
  const m = kappas.length;
  const lower = kappas[Math.min(m - 1, Math.floor(((1 - level) / 2) * m))] ?? NaN;
  const upper = kappas[Math.max(0, Math.ceil(((1 + level) / 2) * m) - 1)] ?? NaN;
  return [lower, upper];
}

export type KappaBand = 'gate' | 'monitor' | 'unusable' | 'undefined';

export function kappaBand(kappa: number | null): KappaBand {
  if (kappa === null) return 'undefined';
  if (kappa >= GATE_KAPPA) return 'gate';
  if (kappa >= MONITOR_KAPPA) return 'monitor';
  return 'unusable';
}

export function bandWords(band: KappaBand): string {
  switch (band) {
    case 'gate':
      return `may gate on its own (κ ≥ ${GATE_KAPPA})`;
    case 'monitor':
      return `monitoring only (${MONITOR_KAPPA} ≤ κ < ${GATE_KAPPA})`;
    case 'unusable':
      return `not usable (κ < ${MONITOR_KAPPA})`;
    case 'undefined':
      return 'undefined (no pairs)';
  }
}

/** Every pair agreeing on one verdict leaves κ undefined (chance explains it), yet it is agreement, not its absence. */
export type AgreementReading =
  | { kind: 'no-pairs' }
  | { kind: 'all-agree'; verdict: Verdict; tooFew: boolean }
  | { kind: 'too-few' }
  | { kind: 'band'; band: Exclude<KappaBand, 'undefined'> };

export function readAgreement(agreement: Pick<Agreement, 'n' | 'kappa' | 'matrix'>): AgreementReading {
  if (agreement.n === 0) return { kind: 'no-pairs' };
  if (agreement.kappa === null) {
    const verdict = verdicts.find((_, i) => agreement.matrix[i]?.[i] === agreement.n) ?? 'pass';
    return { kind: 'all-agree', verdict, tooFew: agreement.n < MIN_KAPPA_PAIRS };
  }
  if (agreement.n < MIN_KAPPA_PAIRS) return { kind: 'too-few' };
  return { kind: 'band', band: kappaBand(agreement.kappa) as Exclude<KappaBand, 'undefined'> };
}

export const tooFewWords = (n: number): string => `too few pairs for a band: ${n} of the ${MIN_KAPPA_PAIRS} a κ needs`;

export function allAgreeWords(n: number, verdict: Verdict, tooFew: boolean): string {
  const all = n === 1 ? `the 1 pair agrees (${verdict})` : n === 2 ? `both pairs agree (both ${verdict})` : `all ${n} pairs agree (every one ${verdict})`;
  return `${all}: κ is not defined when both sides give one verdict throughout${tooFew ? `; ${tooFewWords(n)}` : ''}`;
}
