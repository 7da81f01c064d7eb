/** A compare run's workflow input, prepared plan and progress. PURE MODULE. */
import type { Profile } from '../../harness/profiles.js';
import type { SweepCounts, SweepProgress } from '../sweep-types.js';

export interface CompareOptions {
  /** Asked in this order. */
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
  /** Over the whole run, in USD (raised by a resume). */
  maxCostUsd?: number;
}

export interface CompareInput extends CompareOptions {
  /** `<checkout:ID>` (src/checkout/places.ts). */
  checkout: string;
  runId: string;
  profilesFile?: string;
  /** Environment added to every route's profile (a fake-harness scenario in tests and the demo). */
  env?: Record<string, string>;
}

export interface PreparedRoute {
  route: string;
  /** `<run-id>--<route>`: the run whose launch directories and batch files the route's units use. */
  askRunId: string;
  profile: Profile;
  pairs: number;
  units: number;
  batches: number;
}

export interface PreparedCompare {
  runId: string;
  runDir: string;
  sampleSize: number;
  /** The routes that are asked (`results` is read at prepare, never asked). */
  asked: PreparedRoute[];
  /** The routes whose verdicts were already written at prepare (`results`), with how many pairs they cover. */
  read: { route: string; pairs: number }[];
}

export interface RouteProgress {
  route: string;
  pairs: number;
  done: number;
  problems: number;
  state: 'waiting' | 'asking' | 'done' | 'read';
}

/** A sweep's shape, so it follows and reads like one. */
export interface CompareProgress extends SweepProgress {
  routes: RouteProgress[];
  /** Asked now. */
  route?: string;
  sampleSize: number;
}

export interface CompareSummary extends CompareProgress {
  runDir: string;
  report: { json: string; md: string; html: string };
  /** One per route against each reference. */
  overall: string[];
}

export type { SweepCounts };
