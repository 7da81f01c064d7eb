/**
 * The model APIs' SDKs load on first need (they took a worker's start from 0.64 to 1.0 CPU s). `createRequire`, not `import()`:
 * under jest an activity that outlives its test is refused an `import()`, never a `require`.
 */
import type AnthropicSdk from '@anthropic-ai/sdk';
import { createRequire } from 'node:module';
import type * as OpenAISdk from 'openai';

const load = createRequire(import.meta.url);

export const anthropicSdk = (): { default: typeof AnthropicSdk } => load('@anthropic-ai/sdk') as { default: typeof AnthropicSdk };

export const openaiSdk = (): typeof OpenAISdk => load('openai') as typeof OpenAISdk;
