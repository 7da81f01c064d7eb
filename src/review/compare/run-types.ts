/**
 * A compare run's workflow input, its prepared plan and its progress: what the command hands the
 * workflow and what `review status`-style following reads back. The shared contract (routes, sample,
 * verdicts, report) is types.ts.
 *
 * PURE MODULE: types only (workflow code imports them).
 */
import type { Profile } from '../../harness/profiles.js';
import type { SweepCounts, SweepProgress } from '../sweep-types.js';

export interface CompareOptions {
  /** The route names as given (`claude:pair`, `anthropic-haiku:bundle`), asked in this order. */
  routes: string[];
  /** The route every other is scored against first (a route's name or `results`); absent: the first route. */
  reference?: string;
  size: number;
  seed: number;
  perCriterionMin: number;
  /** Globs on criterion IDs (a gate's `{lens}/{name}` or a type spec's or COLLECTION.md's KB path). */
  criteria: string[];
  /** Globs on note paths. */
  notes: string[];
  concurrency: number;
  /** The `--max-cost` cap in US dollars over the whole run (raised by a resume). */
  maxCostUsd?: number;
}

export interface CompareInput extends CompareOptions {
  /** The KB checkout: `<checkout:ID>` (src/checkout/places.ts). */
  checkout: string;
  runId: string;
  profilesFile?: string;
  /** Environment added to every route's profile (a fake-harness scenario in tests and the demo). */
  env?: Record<string, string>;
}

/** One route as the run asks it: its profile resolved, its units written in batches under its own asking run. */
export interface PreparedRoute {
  route: string;
  /** The asking run whose launch directories and batch files the route's units use (`<run-id>--<route>`). */
  askRunId: string;
  profile: Profile;
  pairs: number;
  units: number;
  batches: number;
}

export interface PreparedCompare {
  runId: string;
  /** The compare run's directory (relative paths under the checkout token). */
  runDir: string;
  sampleSize: number;
  /** The routes that are asked (`results` is read at prepare, never asked). */
  asked: PreparedRoute[];
  /** The routes whose verdicts were already written at prepare (`results`), with how many pairs they cover. */
  read: { route: string; pairs: number }[];
}

/** How far each route is. */
export interface RouteProgress {
  route: string;
  pairs: number;
  done: number;
  problems: number;
  state: 'waiting' | 'asking' | 'done' | 'read';
}

/** A compare run's progress: a sweep's shape (so it follows and reads like one) with its routes. */
export interface CompareProgress extends SweepProgress {
  routes: RouteProgress[];
  /** The route being asked now. */
  route?: string;
  /** The sample's size (every route asks each of these pairs). */
  sampleSize: number;
}

export interface CompareSummary extends CompareProgress {
  runDir: string;
  /** The report's files (json, md, html) as written at the end of the run. */
  report: { json: string; md: string; html: string };
  /** The report's overall lines (one per route against each reference). */
  overall: string[];
}

export type { SweepCounts };
