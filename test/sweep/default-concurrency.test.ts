// A sweep without --concurrency runs at its profile's default: a model API's units are single requests held open
// cheaply (32 at once), a CLI's are processes (4); --concurrency still sets it.
import { MockActivityEnvironment } from '@temporalio/testing';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { prepareSweep } from '../../src/activities/review/sweep/prepare.js';
import type { PreparedSweep, SweepInput } from '../../src/review/sweep-types.js';
import { scratch } from '../helpers/fake.js';
import { corpusCopy, someNotes } from '../helpers/kb.js';

async function prepared(profile: string, concurrency?: number): Promise<PreparedSweep> {
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
    notes: await someNotes(1),
    gates: [],
    grouping: 'pair',
    profile,
    batchSize: 100,
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
