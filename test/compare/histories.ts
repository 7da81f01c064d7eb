// The compare run's recorded histories (test/histories/record.ts calls these): a compare run of two routes
// whose second route is stopped by a usage limit and resumed by the operator, with that route's batch and its resumed batch.
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { cp, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { checkoutAt } from '../../src/checkout/index.js';
import { packageRoot } from '../../src/paths.js';
import type { CompareInput } from '../../src/review/compare/run-types.js';
import { TASK_QUEUE } from '../../src/search-attributes.js';
import { fakeScenario, scratch, waitFor } from '../helpers/fake.js';
import { fakeProfilesFile } from '../helpers/probe.js';
import { testWorker } from '../helpers/temporal.js';
import { recordable, recordingState } from '../histories/recording.js';

type Save = (env: TestWorkflowEnvironment, workflowId: string, name: string) => Promise<void>;

export async function recordCompareHistories(env: TestWorkflowEnvironment, save: Save): Promise<void> {
  const name = 'compare-stopped-resumed';
  if (!recordable(name)) return;
  const checkout = await scratch('commonplace-compare-kb-');
  await cp(join(packageRoot(), 'examples', 'kb'), join(checkout, 'kb'), { recursive: true });
  const { stateDir, fake } = await recordingState(name);
  const lenient = await fakeScenario(join(fake), [{ attempts: [{ review: 'pass' }] }]);
  const strictDir = join(fake, 'strict');
  await mkdir(strictDir, { recursive: true });
  const strict = await fakeScenario(strictDir, [
    { match: '^criterion = sentence/stock-phrases$', attempts: [{ usageLimit: 'Claude AI usage limit reached|1767240000' }, { review: 'fail' }] },
    { attempts: [{ review: 'pass' }] },
  ]);
  const profilesFile = await fakeProfilesFile(fake, {
    lenient: { harness: 'fake', timeout: '1m', env: lenient.env },
    strict: { harness: 'fake', timeout: '1m', env: strict.env },
  });
  const worker = await testWorker(env, { stateDir, checkouts: [await checkoutAt(checkout)] });
  const runId = `history-${name}`;
  const input = worker.places.toPortable<CompareInput>({
    checkout,
    runId,
    routes: ['lenient:pair', 'strict:pair'],
    size: 4,
    seed: 1,
    perCriterionMin: 1,
    criteria: ['sentence/*'],
    notes: [],
    concurrency: 1,
    profilesFile,
  });
  await worker.runUntil(async () => {
    const handle = await env.client.workflow.start('compareRun', { taskQueue: TASK_QUEUE, workflowId: `compare/${runId}`, args: [input] });
    await waitFor(
      'the compare run to stop',
      async () => (await handle.query<{ status: string }>('progress').catch(() => undefined))?.status === 'stopped',
      10 * 60_000,
    );
    await handle.executeUpdate('resume', { args: [{}] });
    await handle.result();
  });
  await save(env, `compare/${runId}`, name);
  await save(env, `compare/${runId}/strict_pair/batch-1`, `${name}-batch-1`);
  await save(env, `compare/${runId}/strict_pair/batch-1-r1`, `${name}-batch-1-r1`);
}
