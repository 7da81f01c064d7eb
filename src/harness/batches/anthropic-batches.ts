/** Anthropic Message Batches through `@anthropic-ai/sdk`: each request the same Messages request the live executor sends. */
import type Anthropic from '@anthropic-ai/sdk';
import { clientOptions, toolCallsOf } from '../executors/api-review.js';
import { anthropicSdk } from '../sdks.js';
import { messageParams } from '../executors/anthropic.js';
import type { Profile } from '../profiles.js';
import { batchRequestTimeoutMs, emptyBatchCounts, type BatchOutcome, type ProviderBatches } from './provider.js';

/** Message Batches for one profile. */
export function anthropicBatches(profile: Profile): ProviderBatches {
  // The SDK loads with the first call, not with the module: a worker that never batches never loads it (src/harness/sdks.ts).
  let client: Anthropic | undefined;
  const messageBatches = () => {
    client ??= new (anthropicSdk().default)(clientOptions(profile, 'ANTHROPIC_API_KEY', Math.max(profile.timeoutMs, batchRequestTimeoutMs)));
    return client.messages.batches;
  };
  return {
    async create(requests) {
      const batches = messageBatches();
      const batch = await batches.create({
        requests: requests.map(({ customId, request }) => ({ custom_id: customId, params: messageParams(profile, request) })),
      });
      return batch.id;
    },
    async find(_key, since, count, known) {
      // Message batches carry no metadata: the candidate is a batch of the same size created since the intent, not already recorded.
      const from = Date.parse(since) - 60_000;
      const found: string[] = [];
      for await (const batch of messageBatches().list({ limit: 100 })) {
        if (Date.parse(batch.created_at) < from) break; // newest first
        const counts = batch.request_counts;
        const total = counts.processing + counts.succeeded + counts.errored + counts.canceled + counts.expired;
        if (total === count && !known.has(batch.id)) found.push(batch.id);
      }
      if (found.length > 1)
        throw new Error(`${found.length} message batches of ${count} requests were created since ${since}; which is this submission's cannot be told`);
      return found[0];
    },
    async state(id) {
      const batch = await messageBatches().retrieve(id);
      const counts = emptyBatchCounts();
      const given = batch.request_counts;
      counts.processing = given.processing;
      counts.succeeded = given.succeeded;
      counts.errored = given.errored;
      counts.expired = given.expired;
      counts.canceled = given.canceled;
      counts.submitted = given.processing + given.succeeded + given.errored + given.expired + given.canceled;
      return { ended: batch.processing_status === 'ended', counts };
    },
    async results(id) {
      const outcomes = new Map<string, BatchOutcome>();
      for await (const line of await messageBatches().results(id)) {
        const result = line.result;
        if (result.type === 'succeeded') {
          const message = result.message;
          const usage = {
            inputTokens: message.usage.input_tokens,
            outputTokens: message.usage.output_tokens,
            cacheReadTokens: message.usage.cache_read_input_tokens ?? 0,
            cacheWriteTokens: message.usage.cache_creation_input_tokens ?? 0,
          };
          // The tool calls, checked against the request's forced tool as a live answer is (`writeReview`).
          outcomes.set(line.custom_id, { kind: 'succeeded', value: toolCallsOf(message.content), model: message.model, usage });
        } else if (result.type === 'errored') {
          outcomes.set(line.custom_id, { kind: 'errored', why: `${result.error.error.type}: ${result.error.error.message}` });
        } else {
          outcomes.set(line.custom_id, { kind: 'expired' });
        }
      }
      return outcomes;
    },
    async cancel(id) {
      const batches = messageBatches();
      const batch = await batches.retrieve(id);
      if (batch.processing_status === 'in_progress') await batches.cancel(id);
    },
  };
}
