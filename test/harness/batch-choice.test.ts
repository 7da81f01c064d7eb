// Whether a sweep asks its units as provider batches: `--batch`, `--live`, and a schedule's `auto` by size and executor.
import { batchesChosen, PROVIDER_BATCH_THRESHOLD, type BatchChoice } from '../../src/harness/batches/batch-contract.js';
import type { HarnessName } from '../../src/harness/profiles.js';

const rows: [BatchChoice | undefined, HarnessName, number, boolean][] = [
  [undefined, 'anthropic', 10_000, false],
  ['never', 'openai', 10_000, false],
  ['always', 'anthropic', 1, true],
  ['always', 'openai', 1, true],
  ['auto', 'anthropic', PROVIDER_BATCH_THRESHOLD, true],
  ['auto', 'openai', PROVIDER_BATCH_THRESHOLD - 1, false],
  ['auto', 'claude', 10_000, false],
  ['auto', 'fake', 10_000, false],
];

test.each(rows)('choice %s on a %s profile with %i units asks as provider batches: %s', (choice, harness, units, batched) => {
  expect(batchesChosen(choice, harness, units)).toBe(batched);
});
