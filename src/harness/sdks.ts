/**
 * The model APIs' SDKs, loaded when a request first needs one: a command or worker that never calls a model
 * API never loads them (`@anthropic-ai/sdk` is 278 modules, `openai` 115; a worker's start was 1.0 CPU s
 * with them and 0.64 without). Both are CommonJS packages, required through `createRequire`: a dynamic
 * `import()` would do the same in Node, but under jest a worker's activity that outlives the test that
 * created it is refused an `import()` (never a `require`).
 */
import type AnthropicSdk from '@anthropic-ai/sdk';
import { createRequire } from 'node:module';
import type * as OpenAISdk from 'openai';

const load = createRequire(import.meta.url);

/** `@anthropic-ai/sdk`'s exports. */
export const anthropicSdk = (): { default: typeof AnthropicSdk } => load('@anthropic-ai/sdk') as { default: typeof AnthropicSdk };

/** `openai`'s exports. */
export const openaiSdk = (): typeof OpenAISdk => load('openai') as typeof OpenAISdk;
