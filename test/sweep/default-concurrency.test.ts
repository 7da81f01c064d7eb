// A sweep without --concurrency runs at its profile's default: a model API's units are single requests held open
// cheaply (32 at once), a CLI's are processes (4); --concurrency still sets it. Without --batch-size, a model API's
// batch takes 500 units (a unit is 4–5 history events), a CLI's 100; --batch-size still sets it.
import { MockActivityEnvironment } from '@temporalio/testing';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { prepareSweep } from '../../src/activities/review/sweep/prepare.js';
import type { PreparedSweep, SweepInput } from '../../src/review/sweep-types.js';
import { scratch } from '../helpers/fake.js';
import { corpusCopy, someNotes } from '../helpers/kb.js';

async function prepared(profile: string, concurrency?: number, options: { notes?: number; batchSize?: number } = {}): Promise<PreparedSweep> {
  const checkout = await corpusCopy();
  const dir = await scratch();
  const profilesFile = join(dir, 'worker-profiles.yaml');
  await writeFile(
    profilesFile,
    stringify({
      profiles: {
        api: { harness: 'anthropic', model: 'claude-haiku-4-5', 'api-key-env': 'COMMONPLACE_TEST_UNUSED_KEY', timeout: '1m' },
        cli: { harness: 'fake', timeout: '1m' },
      },
    }),
  );
  const input: SweepInput & { runId: string } = {
    checkout,
    runId: `GS-default-${profile}`,
    notes: await someNotes(options.notes ?? 1),
    gates: [],
    criteria: ['gates'],
    grouping: 'pair',
    profile,
    ...(options.batchSize !== undefined && { batchSize: options.batchSize }),
    autoResume: false,
    profilesFile,
    ...(concurrency !== undefined && { concurrency }),
  };
  return new MockActivityEnvironment().run(prepareSweep, input) as Promise<PreparedSweep>;
}

test.each([
  ['a model-API profile', 'api', undefined, 32],
  ['a CLI profile', 'cli', undefined, 4],
  ['a model-API profile with --concurrency 3', 'api', 3, 3],
])('a sweep of %s runs its units at the right concurrency', async (_, profile, concurrency, expected) => {
  expect((await prepared(profile, concurrency)).concurrency).toBe(expected);
});

test.each([
  ['a model-API profile', 'api', undefined, 500],
  ['a CLI profile', 'cli', undefined, 100],
  ['a CLI profile with --batch-size 40', 'cli', 40, 40],
])('a sweep of %s puts the right number of units in a batch', async (_, profile, batchSize, expected) => {
  const sweep = await prepared(profile, undefined, { notes: 4, ...(batchSize !== undefined && { batchSize }) });
  // Four notes are over 100 pairs and under 500 (pair grouping: one unit a pair).
  expect(sweep.pairs).toBeGreaterThan(100);
  expect(sweep.pairs).toBeLessThan(500);
  expect(sweep.batches).toBe(Math.ceil(sweep.pairs / expected));
});
