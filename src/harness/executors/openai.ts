/** OpenAI Responses as an executor: one request through `openai` (6.x: the last major for Node 20), the answer as json_schema structured output. */
import type OpenAI from 'openai';
import type { ApiExecutor } from '../executor.js';
import type { Profile } from '../profiles.js';
import { openaiSdk } from '../sdks.js';
import {
  defaultMaxOutputTokens,
  promptCacheKey,
  RECORD_REVIEW,
  requestParts,
  reviewAnswerSchema,
  reviewInstruction,
  type ReviewRequest,
} from './api-request.js';
import { answerReview, type ReviewApi } from './api-review.js';

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
    text: {
      format: {
        type: 'json_schema',
        name: RECORD_REVIEW,
        // The unit's own schema: its criteria as an enum, one review each.
        schema: reviewAnswerSchema(
          request.criteria.map((criterion) => criterion.id),
          request.outcomes,
          'openai',
        ) as unknown as Record<string, unknown>,
        strict: true,
      },
    },
    store: false,
  };
}

/** The answer's value: the structured output's JSON, or undefined when it does not parse (the check then says so). */
function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The Responses API as a review launch calls it: the answer is the structured output's JSON (OpenAI reports no cache writes). */
const responsesApi: ReviewApi<OpenAI.Responses.Response> = {
  keyVariable: 'OPENAI_API_KEY',
  request: 'openai responses',
  // The SDK loads with the first request, not with the module: a client command that checks a profile never loads it.
  send: async (options, profile, request, signal) => {
    const { default: OpenAI } = openaiSdk();
    return new OpenAI(options).responses.create(responseParams(profile, request), { signal }).withResponse();
  },
  read: ({ model, usage, output_text }) => ({
    model,
    usage: {
      inputTokens: usage?.input_tokens ?? 0,
      outputTokens: usage?.output_tokens ?? 0,
      cacheReadTokens: usage?.input_tokens_details?.cached_tokens ?? 0,
      cacheWriteTokens: 0,
    },
    value: parsed(output_text),
  }),
};

export const openai: ApiExecutor = {
  kind: 'api',
  name: 'openai',
  answer: (input, context) => answerReview(responsesApi, input, context),
};
