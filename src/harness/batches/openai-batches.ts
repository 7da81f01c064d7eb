/** The OpenAI Batch API on `/v1/responses` through `openai`: a JSONL file of the live executor's Responses requests, uploaded with purpose `batch`. */
import type OpenAI from 'openai';
import { clientOptions } from '../executors/api-review.js';
import { responseParams } from '../executors/openai.js';
import { openaiSdk } from '../sdks.js';
import type { Profile } from '../profiles.js';
import { batchRequestTimeoutMs, emptyBatchCounts, type BatchOutcome, type ProviderBatches } from './provider.js';

/** The metadata key a batch carries its submission key under (found again after a crash). */
export const SUBMISSION_METADATA = 'commonplace_submission';

interface OutputLine {
  custom_id: string;
  response: { status_code: number; body: OpenAI.Responses.Response | { error?: { message?: string } } } | null;
  error: { code?: string; message?: string } | null;
}

/** One line of an output or error file as an outcome. */
function outcomeOf(line: OutputLine): BatchOutcome {
  if (line.error?.code === 'batch_expired' || line.error?.code === 'batch_cancelled') return { kind: 'expired' };
  const response = line.response;
  if (line.error || !response || response.status_code !== 200) {
    const message = line.error?.message ?? (response?.body as { error?: { message?: string } } | undefined)?.error?.message ?? 'no response';
    return { kind: 'errored', why: `${response?.status_code ?? line.error?.code ?? 'error'}: ${message}` };
  }
  const body = response.body as OpenAI.Responses.Response;
  const text = (body.output ?? [])
    .flatMap((item) => (item.type === 'message' ? item.content : []))
    .map((part) => (part.type === 'output_text' ? part.text : ''))
    .join('');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  const usage = {
    inputTokens: body.usage?.input_tokens ?? 0,
    outputTokens: body.usage?.output_tokens ?? 0,
    cacheReadTokens: body.usage?.input_tokens_details?.cached_tokens ?? 0,
    cacheWriteTokens: 0,
  };
  return { kind: 'succeeded', value, model: body.model, usage };
}

/** Batches on `/v1/responses` for one profile. */
export function openaiBatches(profile: Profile): ProviderBatches {
  // The SDK loads with the first call, not with the module: a worker that never batches never loads it (src/harness/sdks.ts).
  let client: OpenAI | undefined;
  const openai = () => (client ??= new (openaiSdk().default)(clientOptions(profile, 'OPENAI_API_KEY', Math.max(profile.timeoutMs, batchRequestTimeoutMs))));
  const lines = async (fileId: string | null | undefined): Promise<OutputLine[]> => {
    if (!fileId) return [];
    const text = await (await openai().files.content(fileId)).text();
    return text
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as OutputLine);
  };
  return {
    async create(requests, key) {
      const jsonl = requests
        .map(({ customId, request }) => JSON.stringify({ custom_id: customId, method: 'POST', url: '/v1/responses', body: responseParams(profile, request) }))
        .join('\n');
      const file = await openai().files.create({ file: await openaiSdk().toFile(Buffer.from(`${jsonl}\n`), `${key}.jsonl`), purpose: 'batch' });
      const batch = await openai().batches.create({
        input_file_id: file.id,
        endpoint: '/v1/responses',
        completion_window: '24h',
        metadata: { [SUBMISSION_METADATA]: key },
      });
      return batch.id;
    },
    async find(key, since) {
      const from = Date.parse(since) / 1000 - 60;
      for await (const batch of openai().batches.list({ limit: 100 })) {
        if (batch.created_at < from) break; // newest first
        if (batch.metadata?.[SUBMISSION_METADATA] === key) return batch.id;
      }
      return undefined;
    },
    async state(id) {
      const batch = await openai().batches.retrieve(id);
      const counts = emptyBatchCounts();
      const given = batch.request_counts ?? { total: 0, completed: 0, failed: 0 };
      counts.submitted = given.total;
      counts.succeeded = given.completed;
      const ended = ['completed', 'failed', 'expired', 'cancelled'].includes(batch.status);
      if (batch.status === 'expired' || batch.status === 'cancelled') counts.expired = given.total - given.completed - given.failed;
      else counts.processing = given.total - given.completed - given.failed;
      counts.errored = given.failed;
      return { ended, counts };
    },
    async results(id) {
      const batch = await openai().batches.retrieve(id);
      const outcomes = new Map<string, BatchOutcome>();
      for (const line of [...(await lines(batch.output_file_id)), ...(await lines(batch.error_file_id))]) outcomes.set(line.custom_id, outcomeOf(line));
      return outcomes;
    },
    async cancel(id) {
      const batch = await openai().batches.retrieve(id);
      if (['validating', 'in_progress', 'finalizing'].includes(batch.status)) await openai().batches.cancel(id);
    },
  };
}
