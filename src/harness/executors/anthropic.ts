/** Anthropic Messages as an executor: one non-streaming request through `@anthropic-ai/sdk`, the answer forced through a tool. */
import type Anthropic from '@anthropic-ai/sdk';
import type { ApiExecutor } from '../executor.js';
import type { Profile } from '../profiles.js';
import { anthropicSdk } from '../sdks.js';
import { answerTools, defaultMaxOutputTokens, requestParts, reviewInstruction, type ReviewRequest } from './api-request.js';
import { answerReview, toolCallsOf, type ReviewApi } from './api-review.js';

/** The Messages request of one review, live or in a Message Batch: shared part first, with its cache breakpoint. */
export function messageParams(profile: Profile, request: ReviewRequest): Anthropic.MessageCreateParamsNonStreaming {
  const { shared, unit } = requestParts(request);
  const { tools, forced } = answerTools(request);
  return {
    model: profile.model!,
    max_tokens: profile.maxOutputTokens ?? defaultMaxOutputTokens,
    // The cached prefix is tools → system up to the breakpoint: the instruction and the part the sweep's units share.
    // The unit's own schema: its criteria as an enum, one review each (`record_review`), or a note-first pair's
    // note's tools, one per criterion, the same for all its pairs, with the unit's forced (not cached: messages only).
    // No `strict: true`: Anthropic's strict tools take no `maxLength` nor `maxItems`, the schema's bounds.
    tools: tools as Anthropic.Tool[],
    tool_choice: { type: 'tool', name: forced },
    system: [
      { type: 'text', text: reviewInstruction },
      // The profile's `cache-ttl` sets the breakpoint's lifetime (1h writes cost 2× input, 5m 1.25×).
      { type: 'text', text: shared, cache_control: { type: 'ephemeral', ...(profile.cacheTtl !== undefined && { ttl: profile.cacheTtl }) } },
    ],
    messages: [{ role: 'user', content: unit }],
  };
}

/** A message's tokens, the hour-long cache writes apart when there were any. */
const tokensOf = (usage: Anthropic.Usage) => ({
  inputTokens: usage.input_tokens,
  outputTokens: usage.output_tokens,
  cacheReadTokens: usage.cache_read_input_tokens ?? 0,
  cacheWriteTokens: usage.cache_creation_input_tokens ?? 0,
  ...(usage.cache_creation?.ephemeral_1h_input_tokens && { cacheWrite1hTokens: usage.cache_creation.ephemeral_1h_input_tokens }),
});

/** The Messages API as a review launch calls it: the answer is the message's tool calls (the forced one's input is checked). */
const messagesApi: ReviewApi<Anthropic.Message> = {
  keyVariable: 'ANTHROPIC_API_KEY',
  request: 'anthropic messages',
  // The SDK loads with the first request, not with the module: a client command that checks a profile never loads it.
  send: async (options, profile, request, signal) => {
    const { default: Anthropic } = anthropicSdk();
    return new Anthropic(options).messages.create(messageParams(profile, request), { signal }).withResponse();
  },
  read: (message) => ({
    model: message.model,
    usage: tokensOf(message.usage),
    value: toolCallsOf(message.content),
  }),
};

export const anthropic: ApiExecutor = {
  kind: 'api',
  name: 'anthropic',
  answer: (input, context) => answerReview(messagesApi, input, context),
};
