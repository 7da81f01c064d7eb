import { ApplicationFailure } from '@temporalio/common';
import type { Profile } from '../profiles.js';
import { anthropicBatches } from './anthropic-batches.js';
import { openaiBatches } from './openai-batches.js';
import type { ProviderBatches } from './provider.js';

export type { ProviderBatches, BatchOutcome, BatchRequest } from './provider.js';

export function providerBatchesFor(profile: Profile): ProviderBatches {
  if (profile.harness === 'anthropic') return anthropicBatches(profile);
  if (profile.harness === 'openai') return openaiBatches(profile);
  throw ApplicationFailure.create({
    type: 'bad-launch-input',
    nonRetryable: true,
    message: `profile ${profile.name}: harness ${profile.harness} has no provider batches; --batch needs an anthropic or openai profile (docs/batches.md)`,
  });
}
