/**
 * Provider batches as a sweep's workflow sees them: what it hands the batch activities and what they
 * come to. A request's `custom_id` is derived from its unit's answer key (src/review/unit-identity.ts)
 * and the submission round, so the same ask is never submitted twice (docs/batches.md).
 *
 * PURE MODULE: types and constants only; workflows import it.
 */
import type { SpendTotals } from '../launch-contract.js';
import type { Profile } from '../profiles.js';

/** Sweeps of at least this many units on a model-API profile go as provider batches when the sweep says `auto` (schedules): docs/batches.md says why. */
export const PROVIDER_BATCH_THRESHOLD = 200;

/** Whether a sweep asks its units live or as provider batches: `always` (`--batch`), `never` (`--live`, and a sweep that names neither), `auto` (a schedule's default: by size). */
export type BatchChoice = 'always' | 'never' | 'auto';

/** How often the workflow asks the provider how its batch is doing: from the first wait, doubled each time, up to the longest. */
export const BATCH_POLL = { firstSeconds: 30, longestSeconds: 600 } as const;

/** A submission is tried again this many times at most (the provider unreachable); then the sweep stops `launch-failed`. */
export const BATCH_ACTIVITY_ATTEMPTS = 5;

/** One unit's request, as the batch activities find it in the batch's requests file: its captured launch directory and its answer key's digest. */
export interface BatchRequestRef {
  /** The unit's key (its launch directory's name). */
  unit: string;
  /** The captured launch directory on the checkout's host (prompt.md and inputs/). */
  dir: string;
  launchId: string;
  outputs: string[];
  /** The digest of the unit's answer key (src/activities/review/sweep/answers.ts): its `custom_id` and the name its answer is kept by. */
  answer: string;
}

/** What the batch activities are handed: the requests file the capture wrote (the history carries its name, not the requests). */
export interface BatchRequests {
  checkout: string;
  runId: string;
  profile: Profile;
  /** The requests file's name in the run directory (`provider-requests/<name>.json`). */
  requests: string;
  /** 1 for a unit's first submission, 2 for the resubmission of an expired request. */
  round: number;
  /** Only these units' requests (round 2: the expired ones); absent: every request in the file. */
  only?: string[];
}

export type SubmitBatchInput = BatchRequests;

export interface SubmittedBatch {
  /** Every provider batch holding one of the requests (an earlier submission's, or this one's). */
  batches: string[];
  /** Requests sent by this submission (0 when every one was submitted before). */
  sent: number;
}

/** The units captured for a provider batch: how many requests the file holds, and how many units the run had answered already. */
export interface PreparedRequests {
  requests: number;
  answered: number;
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

export interface CollectBatchInput extends BatchRequests {
  batches: string[];
}

/** What the requests came to: each answer recorded in the run's answers, the errors (re-asked live) and the expired, and everything the provider billed. */
export interface CollectedBatch {
  /** Units whose answer is recorded. */
  answered: number;
  errored: Record<string, string>;
  /** Units whose request expired or was canceled before it ran. */
  expired: string[];
  /** Every answer the provider billed, recorded or refused: counted in the spend when collected. */
  billed: SpendTotals;
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
