/** OpenAI Responses as an executor: one request through `openai` (6.x: the last major for Node 20), the answer as json_schema structured output. */
import OpenAI from 'openai';
import type { ApiExecutor } from '../executor.js';
import type { Profile } from '../profiles.js';
import { apiFailure, apiKey, apiReport, defaultMaxOutputTokens, promptCacheKey, rateLimitWarningFromHeaders, RECORD_REVIEW, requestParts, reviewAnswerSchema, reviewInstruction, reviewRequest, writeReview, type ReviewRequest } from './api-review.js';

/** The Responses request of one review, live or in a batch's JSONL: the instruction, then the shared part, steered by the cache key (OpenAI caches a prefix by itself from 1,024 tokens). */
export function responseParams(profile: Profile, request: ReviewRequest): OpenAI.Responses.ResponseCreateParamsNonStreaming {
  const { shared, unit } = requestParts(request);
  return {
    model: profile.model!,
    max_output_tokens: profile.maxOutputTokens ?? defaultMaxOutputTokens,
    instructions: reviewInstruction,
    input: [
      { role: 'developer', content: shared },
      { role: 'user', content: unit },
    ],
    prompt_cache_key: promptCacheKey(shared),
    text: { format: { type: 'json_schema', name: RECORD_REVIEW, schema: reviewAnswerSchema as unknown as Record<string, unknown>, strict: true } },
    store: false,
  };
}

export const openai: ApiExecutor = {
  kind: 'api',
  name: 'openai',
  async answer(input, context) {
    const { profile } = input;
    const request = await reviewRequest(input);
    // The SDK's own retries are off: the relaunch rule decides.
    const client = new OpenAI({ apiKey: apiKey(profile, 'OPENAI_API_KEY'), maxRetries: 0, timeout: profile.timeoutMs, ...(profile.baseUrl !== undefined && { baseURL: profile.baseUrl }) });
    context.heartbeat({ pid: null, elapsedMs: 0, turns: 0, toolUses: 0, lastTool: 'Request openai responses' });
    let response: OpenAI.Responses.Response;
    let headers: Headers;
    try {
      ({ data: response, response: { headers } } = await client.responses
        .create(
        responseParams(profile, request),
        { signal: context.signal },
      )
        .withResponse());
    } catch (error) {
      return apiFailure(input, context.logDir, error, new Date());
    }
    const usage = {
      inputTokens: response.usage?.input_tokens ?? 0,
      outputTokens: response.usage?.output_tokens ?? 0,
      cacheReadTokens: response.usage?.input_tokens_details?.cached_tokens ?? 0,
      cacheWriteTokens: 0,
    };
    let value: unknown;
    try {
      value = JSON.parse(response.output_text);
    } catch {
      value = undefined;
    }
    return writeReview(input, context.logDir, request, value, apiReport(response.model, usage, rateLimitWarningFromHeaders(headers, new Date())));
  },
};
