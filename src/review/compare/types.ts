/**
 * What a compare run keeps (machine-local, never in the KB's result files: sample.json, verdicts/<route>.jsonl, labels.jsonl, report.*)
 * and the calibration record committed with the KB (docs/schemas/calibration-record.v1.schema.json). PURE MODULE.
 */
import type { Grouping, Outcome } from '../sweep-types.js';
import type { TokenTotals } from '../../runs/spend.js';

/** Report criteria are not compared. */
export type Verdict = Exclude<Outcome, 'report'>;

export const verdicts: readonly Verdict[] = ['pass', 'warn', 'fail'];

export interface Route {
  /** `<profile>:<grouping>` with `:batch` when batched (`claude:pair`, `anthropic-haiku:bundle:batch`), or `results` for the KB's own result files. */
  name: string;
  profile: string;
  grouping: Grouping;
  batch: boolean;
}

/** The KB's existing result files as a route (`--reference results`). */
export const RESULTS_ROUTE = 'results';

export function parseRoute(name: string): Route | string {
  if (name === RESULTS_ROUTE) return { name, profile: RESULTS_ROUTE, grouping: 'pair', batch: false };
  const parts = name.split(':');
  const [profile, grouping = 'pair', batch] = parts;
  if (!profile || parts.length > 3) return `route \`${name}\` must be <profile>[:pair|:bundle][:batch]`;
  if (grouping !== 'pair' && grouping !== 'bundle') return `route \`${name}\`: grouping \`${grouping}\` must be pair or bundle`;
  if (batch !== undefined && batch !== 'batch') return `route \`${name}\`: \`${batch}\` must be batch or nothing`;
  return { name: `${profile}:${grouping}${batch ? ':batch' : ''}`, profile, grouping, batch: batch === 'batch' };
}

export function routeFileName(route: string): string {
  return `${route.replace(/[^A-Za-z0-9._-]+/g, '_')}.jsonl`;
}

export interface SamplePair {
  note: string;
  criterion: string;
  /** The criterion's kind for reports (`gate:<lens>`, `type`, `collection`). */
  kind: string;
}

/** Chosen by code from a seed. */
export interface CompareSample {
  seed: number;
  size: number;
  /** Each criterion has at least this many pairs where the KB has them. */
  perCriterionMin: number;
  criteria?: string[];
  notes?: string[];
  pairs: SamplePair[];
}

export interface RouteVerdict {
  route: string;
  note: string;
  criterion: string;
  verdict: Verdict;
  /** The structured findings, or the review text's findings lines. */
  reasons: string[];
  review: string;
  executor: string;
  model: string | null;
  tokens: TokenTotals;
  costUsd: number | null;
  /** A changed criterion makes the record stale. */
  criterionHash: string;
  noteHash: string;
}

/** The operator's verdict on a pair: a reference every route can be scored against. */
export interface Label {
  note: string;
  criterion: string;
  verdict: Verdict;
  by: string;
  at: string;
}

export const LABELS_ROUTE = 'labels';

/** Counts `matrix[reference][candidate]` over pass, warn, fail, in {@link verdicts}' order. */
export type ConfusionMatrix = number[][];

export interface Agreement {
  route: string;
  reference: string;
  n: number;
  /** Share of pairs where both agree, 0–1. */
  raw: number;
  /** Cohen's κ, or null when undefined (a single category seen by both, n = 0). */
  kappa: number | null;
  /** 95 % bootstrap interval of κ (percentile, seeded), or null. */
  kappaInterval: [number, number] | null;
  matrix: ConfusionMatrix;
  /** Pairs where one says pass and the other fail, with both reasons. */
  flips: { note: string; criterion: string; reference: Verdict; route: Verdict; referenceReasons: string[]; routeReasons: string[] }[];
}

export interface RouteCost {
  route: string;
  pairs: number;
  costUsdPerPair: number | null;
  tokensPerPair: TokenTotals;
}

export interface CompareReport {
  runId: string;
  routes: string[];
  /** The route every other is scored against first (the first route unless named). */
  reference: string;
  sample: { seed: number; size: number };
  overall: Agreement[];
  criteria: { criterion: string; kind: string; agreements: Agreement[] }[];
  costs: RouteCost[];
}

/** The κ an operator may let a route gate on its own by default; below {@link MONITOR_KAPPA}, not even to monitor. */
export const GATE_KAPPA = 0.7;
export const MONITOR_KAPPA = 0.4;
/** Under 30 pairs a κ's 95 % interval near the bands is wider than ±0.25 (docs/review-compare.md): the report says the sample is too small instead. */
export const MIN_KAPPA_PAIRS = 30;

export interface CalibrationRecord {
  version: 1;
  criterion: string;
  /** A different hash now makes the record stale. */
  criterionHash: string;
  runId: string;
  at: string;
  reference: string;
  routes: { route: string; n: number; raw: number; kappa: number | null; kappaInterval: [number, number] | null; costUsdPerPair: number | null }[];
}

/** Relative to the checkout root. */
export const CALIBRATION_DIR = 'kb/reports/calibration';
export const COMPARE_RUNS_DIR = 'kb/reports/state/review/compare';

/** As `review compare keep` writes it: a profile defined differently now makes the record stale, like a changed criterion. */
export interface KeptCalibrationRecord extends CalibrationRecord {
  /** Profile name → SHA-256 of its canonical definition when kept; no entry for `results` or `labels`. */
  profileHashes: Record<string, string>;
}

/** `run.json`, written as the run starts, for the report to read its routes and reference from. */
export interface CompareRunFile {
  runId: string;
  /** Every route in the order given, `results` first when it is the reference. */
  routes: string[];
  reference: string;
}

export const COMPARE_RUN_FILE = 'run.json';
