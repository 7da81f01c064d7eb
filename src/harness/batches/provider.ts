/**
 * A provider's batch API behind one interface: submit review requests under a submission key, find
 * a submission by its key after a crash, read a batch's state, read its results by `custom_id`, and
 * cancel it. One module per provider (`anthropic-batches.ts`, `openai-batches.ts`); the clients are
 * built as the live executors build theirs (the profile's base URL and key, the SDK's retries off).
 */
import type { ReviewRequest } from '../executors/api-request.js';
import type { Profile } from '../profiles.js';
import type { TokenUsage } from '../report.js';
import type { BatchCounts } from './batch-contract.js';

/** What one request of an ended batch came to. */
export type BatchOutcome = { kind: 'succeeded'; value: unknown; model: string; usage: TokenUsage } | { kind: 'errored'; why: string } | { kind: 'expired' };

export interface BatchRequest {
  customId: string;
  request: ReviewRequest;
}

export interface ProviderBatches {
  /** Submits the requests as one batch carrying `key` where the provider keeps metadata; returns its ID. */
  create(requests: BatchRequest[], key: string): Promise<string>;
  /** A batch submitted under `key` (OpenAI: its metadata) or, where batches carry none (Anthropic), the one batch of `count` requests created since `since` that `known` does not hold. */
  find(key: string, since: string, count: number, known: ReadonlySet<string>): Promise<string | undefined>;
  state(id: string): Promise<{ ended: boolean; counts: BatchCounts }>;
  results(id: string): Promise<Map<string, BatchOutcome>>;
  cancel(id: string): Promise<void>;
}

/** The shortest timeout of one batch API call: an upload or a results file can take longer than one review's request. */
export const batchRequestTimeoutMs = 120_000;

export const emptyBatchCounts = (): BatchCounts => ({ submitted: 0, processing: 0, succeeded: 0, errored: 0, expired: 0, canceled: 0 });

/** The provider a profile's executor names, or undefined for a CLI profile (its units cannot go in a batch). */
export type BatchProvider = (profile: Profile) => ProviderBatches;
