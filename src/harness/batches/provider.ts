/** A provider's batch API behind one interface; the clients are built as the live executors build theirs (base URL, key, SDK retries off). */
import type { ReviewRequest } from '../executors/api-request.js';
import type { TokenUsage } from '../report.js';
import type { BatchCounts } from './batch-contract.js';

export type BatchOutcome = { kind: 'succeeded'; value: unknown; model: string; usage: TokenUsage } | { kind: 'errored'; why: string } | { kind: 'expired' };

export interface BatchRequest {
  customId: string;
  request: ReviewRequest;
}

export interface ProviderBatches {
  /** Returns the batch's ID; `key` is kept where the provider keeps metadata. */
  create(requests: BatchRequest[], key: string): Promise<string>;
  /** A batch submitted under `key` (OpenAI: its metadata) or, where batches carry none (Anthropic), the one batch of `count` requests created since `since` that `known` does not hold. */
  find(key: string, since: string, count: number, known: ReadonlySet<string>): Promise<string | undefined>;
  state(id: string): Promise<{ ended: boolean; counts: BatchCounts }>;
  results(id: string): Promise<Map<string, BatchOutcome>>;
  cancel(id: string): Promise<void>;
}

/** An upload or a results file can take longer than one review's request. */
export const batchRequestTimeoutMs = 120_000;

export const emptyBatchCounts = (): BatchCounts => ({ submitted: 0, processing: 0, succeeded: 0, errored: 0, expired: 0, canceled: 0 });
