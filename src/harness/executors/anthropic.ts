/** Anthropic Messages as an executor: one non-streaming request through `@anthropic-ai/sdk`, the answer forced through a tool. */
import Anthropic from '@anthropic-ai/sdk';
import type { ApiExecutor } from '../executor.js';
import type { Profile } from '../profiles.js';
import { apiFailure, apiKey, apiReport, defaultMaxOutputTokens, rateLimitWarningFromHeaders, RECORD_REVIEW, requestParts, reviewInstruction, reviewRequest, reviewTool, writeReview, type ReviewRequest } from './api-review.js';

/** The Messages request of one review, live or in a Message Batch: shared part first, with its cache breakpoint. */
export function messageParams(profile: Profile, request: ReviewRequest): Anthropic.MessageCreateParamsNonStreaming {
  const { shared, unit } = requestParts(request);
  return {
    model: profile.model!,
    max_tokens: profile.maxOutputTokens ?? defaultMaxOutputTokens,
    // The cached prefix is tools → system up to the breakpoint: the instruction and the part the sweep's units share.
    tools: [reviewTool as unknown as Anthropic.Tool],
    tool_choice: { type: 'tool', name: RECORD_REVIEW },
    system: [
      { type: 'text', text: reviewInstruction },
      // The profile's `cache-ttl` sets the breakpoint's lifetime (1h writes cost 2× input, 5m 1.25×).
      { type: 'text', text: shared, cache_control: { type: 'ephemeral', ...(profile.cacheTtl !== undefined && { ttl: profile.cacheTtl }) } },
    ],
    messages: [{ role: 'user', content: unit }],
  };
}

export const anthropic: ApiExecutor = {
  kind: 'api',
  name: 'anthropic',
  async answer(input, context) {
    const { profile } = input;
    const request = await reviewRequest(input);
    // The SDK's own retries are off: the relaunch rule decides.
    const client = new Anthropic({ apiKey: apiKey(profile, 'ANTHROPIC_API_KEY'), maxRetries: 0, timeout: profile.timeoutMs, ...(profile.baseUrl !== undefined && { baseURL: profile.baseUrl }) });
    context.heartbeat({ pid: null, elapsedMs: 0, turns: 0, toolUses: 0, lastTool: 'Request anthropic messages' });
    let message: Anthropic.Message;
    let headers: Headers;
    try {
      ({ data: message, response: { headers } } = await client.messages
        .create(
        messageParams(profile, request),
        { signal: context.signal },
      )
        .withResponse());
    } catch (error) {
      return apiFailure(input, context.logDir, error, new Date());
    }
    const usage = {
      inputTokens: message.usage.input_tokens,
      outputTokens: message.usage.output_tokens,
      cacheReadTokens: message.usage.cache_read_input_tokens ?? 0,
      cacheWriteTokens: message.usage.cache_creation_input_tokens ?? 0,
      ...(message.usage.cache_creation?.ephemeral_1h_input_tokens && { cacheWrite1hTokens: message.usage.cache_creation.ephemeral_1h_input_tokens }),
    };
    const call = message.content.find((block): block is Anthropic.ToolUseBlock => block.type === 'tool_use' && block.name === RECORD_REVIEW);
    return writeReview(input, context.logDir, request, call?.input, apiReport(message.model, usage, rateLimitWarningFromHeaders(headers, new Date())));
  },
};
