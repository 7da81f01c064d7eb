/**
 * What a compare run (`commonplace review compare`) keeps and what its report and the calibration
 * records read: the routes, the sample, every route's verdicts kept apart, the operator's labels,
 * and the record a sweep chooses a criterion's route by.
 *
 * A compare run's directory is `kb/reports/state/review/compare/<run-id>/` in the checkout (machine-local, like every run directory):
 * - `sample.json` — the {@link CompareSample};
 * - `verdicts/<route-file>.jsonl` — one {@link RouteVerdict} per line for each route
 *   ({@link routeFileName} of the route's name);
 * - `labels.jsonl` — one {@link Label} per line, the operator's (`review compare label`);
 * - `report.json`, `report.md`, `report.html` — the {@link CompareReport} and its renderings.
 * Nothing of a compare run is ever written to the KB's result files.
 *
 * A calibration record is `kb/reports/calibration/<criterion-file>.json` (a {@link CalibrationRecord},
 * validated by `docs/schemas/calibration-record.v1.schema.json`), committed with the KB.
 *
 * Pure types and string code (no Node built-ins): workflow code imports them.
 */
import type { Grouping, Outcome } from '../sweep-types.js';
import type { TokenTotals } from '../../runs/spend.js';

/** A verdict a compare run compares: a gate's outcome (report criteria are not compared). */
export type Verdict = Exclude<Outcome, 'report'>;

export const verdicts: readonly Verdict[] = ['pass', 'warn', 'fail'];

/** One way of asking a pair: a profile (its executor and model), a grouping, live or batched. */
export interface Route {
  /** `<profile>:<grouping>` with `:batch` when batched (`claude:pair`, `anthropic-haiku:bundle:batch`), or `results` for the KB's own result files. */
  name: string;
  profile: string;
  grouping: Grouping;
  batch: boolean;
}

/** The reference route name for a sweep's existing result files (`--reference results`). */
export const RESULTS_ROUTE = 'results';

/** The route a name spells, or a message naming what is wrong with it. */
export function parseRoute(name: string): Route | string {
  if (name === RESULTS_ROUTE) return { name, profile: RESULTS_ROUTE, grouping: 'pair', batch: false };
  const parts = name.split(':');
  const [profile, grouping = 'pair', batch] = parts;
  if (!profile || parts.length > 3) return `route \`${name}\` must be <profile>[:pair|:bundle][:batch]`;
  if (grouping !== 'pair' && grouping !== 'bundle') return `route \`${name}\`: grouping \`${grouping}\` must be pair or bundle`;
  if (batch !== undefined && batch !== 'batch') return `route \`${name}\`: \`${batch}\` must be batch or nothing`;
  return { name: `${profile}:${grouping}${batch ? ':batch' : ''}`, profile, grouping, batch: batch === 'batch' };
}

/** The file a route's verdicts are kept in, under the run's `verdicts/`. */
export function routeFileName(route: string): string {
  return `${route.replace(/[^A-Za-z0-9._-]+/g, '_')}.jsonl`;
}

/** One pair of the sample, and the hashes its verdicts are fresh against. */
export interface SamplePair {
  note: string;
  criterion: string;
  /** The criterion's kind for reports (`gate:<lens>`, `type`, `collection`). */
  kind: string;
}

/** The sample a compare run asks, chosen by code from a seed. */
export interface CompareSample {
  seed: number;
  /** Pairs asked in all. */
  size: number;
  /** Each criterion has at least this many pairs where the KB has them. */
  perCriterionMin: number;
  criteria?: string[];
  notes?: string[];
  pairs: SamplePair[];
}

/** One route's verdict on one pair, with what it cost. */
export interface RouteVerdict {
  route: string;
  note: string;
  criterion: string;
  verdict: Verdict;
  /** The review's reasons: the structured findings, or the review text's findings lines. */
  reasons: string[];
  /** The whole review text as written. */
  review: string;
  executor: string;
  model: string | null;
  tokens: TokenTotals;
  /** Dollars, or null when the profile has no price. */
  costUsd: number | null;
  /** The criterion's content hash the verdict was given against (a changed criterion makes a record stale). */
  criterionHash: string;
  noteHash: string;
}

/** The operator's verdict on a pair, the reference every route can be scored against. */
export interface Label {
  note: string;
  criterion: string;
  verdict: Verdict;
  /** Who labelled and when (ISO 8601), for the record. */
  by: string;
  at: string;
}

/** The label pseudo-route's name in reports. */
export const LABELS_ROUTE = 'labels';

/** Counts `matrix[reference][candidate]` over pass, warn, fail, in {@link verdicts}' order. */
export type ConfusionMatrix = number[][];

/** One route measured against one reference on one criterion (or overall). */
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

/** What a route cost per pair over the sample. */
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
/**
 * The fewest pairs a κ is given a band from (per criterion, overall, against labels alike): under 30
 * the 95 % interval of a κ near the bands is wider than ±0.25 (docs/review-compare.md), so a band
 * would claim more than the sample holds. The report says the sample is too small instead.
 */
export const MIN_KAPPA_PAIRS = 30;

/** A compare run kept as the basis for choosing a criterion's route. */
export interface CalibrationRecord {
  version: 1;
  criterion: string;
  /** The criterion's content hash when compared: a different hash now makes the record stale. */
  criterionHash: string;
  runId: string;
  at: string;
  reference: string;
  routes: { route: string; n: number; raw: number; kappa: number | null; kappaInterval: [number, number] | null; costUsdPerPair: number | null }[];
}

/** The calibration records' directory, relative to the checkout root. */
export const CALIBRATION_DIR = 'kb/reports/calibration';

/** The compare runs' directory, relative to the checkout root. */
export const COMPARE_RUNS_DIR = 'kb/reports/state/review/compare';

/**
 * A calibration record as `review compare keep` writes it: the record, and the definitions of the
 * profiles its routes (and its reference) ran under when kept — a profile defined differently now makes
 * the record stale, like a changed criterion.
 */
export interface KeptCalibrationRecord extends CalibrationRecord {
  /** Profile name → SHA-256 of its canonical definition when kept; no entry for `results` or `labels`. */
  profileHashes: Record<string, string>;
}

/** `run.json` in a compare run's directory, written as the run starts: what it asks, for the report to read its routes and reference from. */
export interface CompareRunFile {
  runId: string;
  /** Every route in the order given, `results` first when it is the reference. */
  routes: string[];
  /** The route scored against first (the first route unless named). */
  reference: string;
}

/** The run file's name in a compare run's directory. */
export const COMPARE_RUN_FILE = 'run.json';
