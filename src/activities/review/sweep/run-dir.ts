/** Where a gate sweep keeps its state: a run directory inside the KB checkout (never a note's folder). */
import { join } from 'node:path';

/** Relative to the checkout. */
export const reviewRunsDir = join('kb', 'reports', 'state', 'review', 'runs');
export const runDirOf = (checkout: string, runId: string) => join(checkout, reviewRunsDir, runId);
/** One batch's units, so the history carries a batch number instead of the work list. */
export const batchFile = (runDir: string, batch: number) => join(runDir, 'batches', `batch-${String(batch + 1).padStart(4, '0')}.json`);
/** The sweep's problem pairs, one JSON line each, where `review retry` finds them. */
export const problemsFile = (runDir: string) => join(runDir, 'problems.jsonl');
/** The pairs whose inputs changed while their launch ran, one JSON line each. */
export const staleOnArrivalFile = (runDir: string) => join(runDir, 'stale-on-arrival.jsonl');
/** Resolved at prepare: a unit's activity is handed a name, not the profile. */
export const profilesFile = (runDir: string) => join(runDir, 'profiles.json');
/** The one output a review launch writes. */
export const REVIEW_OUTPUT = 'review.md';
