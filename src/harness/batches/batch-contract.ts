/**
 * Provider batches as a sweep's workflow sees them: what it hands the batch activities and what they
 * come to. A request's `custom_id` is derived from its unit's answer key (src/review/unit-identity.ts)
 * and the submission round, so the same ask is never submitted twice (docs/batches.md).
 *
 * PURE MODULE: types and constants only; workflows import it.
 */
import type { BilledTry, LaunchResult } from '../launch-contract.js';
import type { Profile } from '../profiles.js';

/** Sweeps of at least this many units on a model-API profile go as provider batches when the sweep says `auto` (schedules): docs/batches.md says why. */
export const PROVIDER_BATCH_THRESHOLD = 200;

/** Whether a sweep asks its units live or as provider batches: `always` (`--batch`), `never` (`--live`, and every sweep begun before batches), `auto` (a schedule's default: by size). */
export type BatchChoice = 'always' | 'never' | 'auto';

/** How often the workflow asks the provider how its batch is doing: from the first wait, doubled each time, up to the longest. */
export const BATCH_POLL = { firstSeconds: 30, longestSeconds: 600 } as const;

/** A submission is tried again this many times at most (the provider unreachable); then the sweep stops `launch-failed`. */
export const BATCH_ACTIVITY_ATTEMPTS = 5;

/** One unit's request, as the batch activities find it: its captured launch directory and its answer key's parts. */
export interface BatchRequestRef {
  /** The unit's key (its launch directory's name). */
  unit: string;
  /** The captured launch directory on the checkout's host (prompt.md and inputs/). */
  dir: string;
  launchId: string;
  /** Per criterion ID, the note's and the criterion's hashes, and the outputs: with the prompt (read from `dir`), the unit's identity (src/review/unit-identity.ts). */
  hashes: Record<string, { note: string; criterion: string }>;
  outputs: string[];
}

export interface SubmitBatchInput {
  checkout: string;
  runId: string;
  profile: Profile;
  requests: BatchRequestRef[];
  /** 1 for a unit's first submission, 2 for the resubmission of an expired request. */
  round: number;
}

export interface SubmittedBatch {
  /** Every provider batch holding one of the requests (an earlier submission's, or this one's). */
  batches: string[];
  /** Each unit's `custom_id`. */
  customIds: Record<string, string>;
  /** Requests sent by this submission (0 when every one was submitted before). */
  sent: number;
}

/** Requests by state, summed over the batches: what the progress shows. */
export interface BatchCounts {
  submitted: number;
  processing: number;
  succeeded: number;
  errored: number;
  expired: number;
  canceled: number;
}

/** Where a gate batch's provider batch stands, for its progress query and current details. */
export interface ProviderBatchProgress {
  /** 1, or 2 while expired requests are resubmitted. */
  round: number;
  batches: string[];
  counts: BatchCounts;
}

export interface PollBatchInput {
  checkout: string;
  profile: Profile;
  batches: string[];
}

export interface BatchState {
  /** Every batch has ended (its results can be collected). */
  ended: boolean;
  counts: BatchCounts;
}

export interface CollectBatchInput {
  checkout: string;
  runId: string;
  profile: Profile;
  batches: string[];
  requests: (BatchRequestRef & { customId: string })[];
}

/** What each unit's request came to: an answer written and digested like any launch's, an error (re-asked live), or expired. */
export interface CollectedBatch {
  answered: Record<string, LaunchResult>;
  errored: Record<string, string>;
  /** Units whose request expired or was canceled before it ran. */
  expired: string[];
  /** Units whose answer the provider billed but the check refused (asked again live): counted in the spend all the same. */
  billed?: Record<string, BilledTry>;
}

export interface CancelBatchInput {
  checkout: string;
  profile: Profile;
  batches: string[];
}

/** Whether a sweep's units go as provider batches: always or never as the operator said; by `auto`, a model-API profile's sweep of at least the threshold's units. */
export function batchesChosen(choice: BatchChoice | undefined, harness: Profile['harness'], units: number): boolean {
  const api = harness === 'anthropic' || harness === 'openai';
  if (choice === 'always') return true;
  return choice === 'auto' && api && units >= PROVIDER_BATCH_THRESHOLD;
}
