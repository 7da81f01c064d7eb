/** Provider batches as a sweep's workflow sees them. A `custom_id` comes from the answer key and round, so an ask is never submitted twice. PURE MODULE. */
import type { SpendTotals } from '../launch-contract.js';
import type { Profile } from '../profiles.js';

/** Sweeps of at least this many units on a model-API profile go as provider batches when the sweep says `auto` (schedules): docs/batches.md says why. */
export const PROVIDER_BATCH_THRESHOLD = 200;

/** Whether a sweep asks its units live or as provider batches: `always` (`--batch`), `never` (`--live`, and a sweep that names neither), `auto` (a schedule's default: by size). */
export type BatchChoice = 'always' | 'never' | 'auto';

/** Poll waits, doubled each time up to the longest. */
export const BATCH_POLL = { firstSeconds: 30, longestSeconds: 600 } as const;

/** A submission is tried again this many times at most (the provider unreachable); then the sweep stops `launch-failed`. */
export const BATCH_ACTIVITY_ATTEMPTS = 5;

export interface BatchRequestRef {
  /** The unit's key (its launch directory's name). */
  unit: string;
  /** On the checkout's host (prompt.md and inputs/). */
  dir: string;
  launchId: string;
  outputs: string[];
  /** The answer key's digest: its `custom_id` and the name its answer is kept by. */
  answer: string;
}

/** The history carries the requests file's name, not the requests. */
export interface BatchRequests {
  checkout: string;
  runId: string;
  profile: Profile;
  /** The requests file's name in the run directory (`provider-requests/<name>.json`). */
  requests: string;
  /** 1 for a unit's first submission, 2 for the resubmission of an expired request. */
  round: number;
  /** Round 2's expired units; absent: every request in the file. */
  only?: string[];
}

export type SubmitBatchInput = BatchRequests;

export interface SubmittedBatch {
  /** Every provider batch holding one of the requests (an earlier submission's, or this one's). */
  batches: string[];
  /** Requests sent by this submission (0 when every one was submitted before). */
  sent: number;
}

export interface PreparedRequests {
  requests: number;
  answered: number;
}

export interface BatchCounts {
  submitted: number;
  processing: number;
  succeeded: number;
  errored: number;
  expired: number;
  canceled: number;
}

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
  ended: boolean;
  counts: BatchCounts;
}

export interface CollectBatchInput extends BatchRequests {
  batches: string[];
}

export interface CollectedBatch {
  answered: number;
  /** Re-asked live. */
  errored: Record<string, string>;
  /** Units whose request expired or was canceled before it ran. */
  expired: string[];
  /** Recorded or refused: counted in the spend when collected. */
  billed: SpendTotals;
}

export interface CancelBatchInput {
  checkout: string;
  profile: Profile;
  batches: string[];
}

/** By `auto`, a model-API profile's sweep of at least the threshold's units. */
export function batchesChosen(choice: BatchChoice | undefined, harness: Profile['harness'], units: number): boolean {
  const api = harness === 'anthropic' || harness === 'openai';
  if (choice === 'always') return true;
  return choice === 'auto' && api && units >= PROVIDER_BATCH_THRESHOLD;
}
