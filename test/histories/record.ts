// Records the histories test/replay.test.ts replays: real runs of each workflow on real servers.
// Run after a deliberate workflow change:
//   npx tsx test/histories/record.ts [--replace] [NAME]...
// It records the histories named (none named: every one) that are not yet under test/histories: a kept
// history replays runs begun under the code that recorded it, so it is recorded again only with --replace.
// Each run is started the way the system runs now: its worker holds the run's checkout, the fake
// scenario and profiles file sit in the worker's state directory, and the input is written from place
// tokens (`<checkout:ID>`, `<worktrees:ID>`, `<state>`, `<package>`). So a history names no path of the
// machine that recorded it, and nothing is scrubbed: a recording that still holds one fails loudly.
// Each run carries the release recording it (the test clients stamp it: src/release-stamp.ts), and
// recorded-by.map names that release beside each history; a history whose run does not carry it is refused.
// Every kept history is of a release the code runs: at a release that stops running older runs, its
// histories are deleted and recorded again (docs/upgrading.md); 0.2.0's were recorded so.
import { chooseRecordings, failOnRejectedHistories, recordable, recordingState, saveHistory } from './recording.js';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowHandle } from '@temporalio/client';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { checkoutAt } from '../../src/checkout/index.js';
import { TASK_QUEUE } from '../../src/search-attributes.js';
import type { SweepInput } from '../../src/review/sweep-types.js';
import { quotaAccount } from '../../src/runs/quota.js';
import { quotaGateId } from '../../src/runs/workflow-ids.js';
import { fakeScenario, waitFor, type FakeAttempt, type FakeRule } from '../helpers/fake.js';
import type { CommonplaceWorker } from '../../src/worker.js';
import { corpusCopy, someNotes } from '../helpers/kb.js';
import { fakeProfilesFile, probeInput } from '../helpers/probe.js';
import { startStandIn } from '../helpers/model-apis/stand-in.js';
import { reply } from '../helpers/model-apis/replies.js';
import { startDevEnvironment, startTimeSkippingEnvironment, testWorker } from '../helpers/temporal.js';
import { recordEditExhaustedHistory, recordEditHistories } from '../review-edit/histories.js';
import { recordCompareHistories } from '../compare/histories.js';
import { recordAnalysisHistories, recordAnalysisTimerHistories } from '../analysis/histories.js';

/** Waits until a recorded sweep stops (a state its progress query says), for the recording to resume it. */
async function untilStopped(handle: WorkflowHandle): Promise<void> {
  await waitFor('the sweep to stop', async () => (await handle.query<{ status: string }>('progress').catch(() => undefined))?.status === 'stopped', 10 * 60_000);
}

/**
 * A recording's worker, as the system runs now: it holds the run's checkout (when there is one), and the
 * fake scenario and profiles file sit in its state directory. Inputs pass through `worker.places.toPortable`
 * before they start a run.
 */
async function recordingWorker(
  env: TestWorkflowEnvironment,
  name: string,
  rules: FakeRule[],
  profiles: Record<string, Record<string, unknown>>,
  checkout?: string,
): Promise<{ worker: CommonplaceWorker; fakeEnv: Record<string, string>; profilesFile: string }> {
  const { stateDir, fake } = await recordingState(name);
  const { env: fakeEnv } = await fakeScenario(fake, rules);
  const profilesFile = await fakeProfilesFile(fake, profiles);
  const worker = await testWorker(env, { stateDir, checkouts: checkout === undefined ? [] : [await checkoutAt(checkout)] });
  return { worker, fakeEnv, profilesFile };
}

const fakeProfiles = { fake: { harness: 'fake', timeout: '1m' } };

async function recordSweep(env: TestWorkflowEnvironment, name: string, rules: FakeRule[], extra: Partial<SweepInput>, resume = false): Promise<void> {
  const checkout = await corpusCopy();
  const { worker, fakeEnv, profilesFile } = await recordingWorker(env, name, rules, fakeProfiles, checkout);
  const runId = `history-${name}`;
  const input = worker.places.toPortable<SweepInput>({ checkout, runId, notes: await someNotes(2), gates: ['frontmatter/*'], criteria: ['gates'], grouping: 'pair', profile: 'fake', concurrency: 2, batchSize: 4, autoResume: false, profilesFile, env: fakeEnv, ...extra });
  await worker.runUntil(async () => {
    const handle = await env.client.workflow.start('gateSweep', { taskQueue: TASK_QUEUE, workflowId: `gates/${runId}`, args: [input] });
    if (resume) {
      await untilStopped(handle);
      await handle.executeUpdate('resume');
    }
    await handle.result();
  });
  await saveHistory(env, `gates/${runId}`, name);
  await saveHistory(env, `gates/${runId}/batch-1`, `${name}-batch-1`);
}

async function recordProbe(env: TestWorkflowEnvironment, name: string, profile: Record<string, unknown>, attempts: FakeAttempt[]): Promise<void> {
  const { worker, fakeEnv, profilesFile } = await recordingWorker(env, name, [{ attempts }], { subject: profile });
  const workflowId = `history/${name}`;
  const input = worker.places.toPortable(probeInput(workflowId, 'subject', profilesFile, fakeEnv));
  // A probe whose launch did not complete fails its workflow: the failure is what is recorded.
  await worker.runUntil(env.client.workflow.execute('probe', { taskQueue: TASK_QUEUE, workflowId, args: [input] }).catch(() => undefined));
  await saveHistory(env, workflowId, name);
}

/** A sweep stopped by a usage limit that closed its account's quota gate, resumed by the operator (which opens the gate); the gate's own history too. */
async function recordQuotaGate(env: TestWorkflowEnvironment, name: string): Promise<void> {
  const checkout = await corpusCopy();
  const reset = Math.floor(Date.now() / 1000) + 3600;
  const { worker, fakeEnv, profilesFile } = await recordingWorker(env, name, [{ attempts: [{ usageLimit: `Claude AI usage limit reached|${reset}` }, { review: 'pass' }] }], fakeProfiles, checkout);
  const runId = `history-${name}`;
  const input = worker.places.toPortable<SweepInput>({ checkout, runId, notes: await someNotes(1), gates: ['frontmatter/description-discrimination'], criteria: ['gates'], grouping: 'pair', profile: 'fake', concurrency: 1, batchSize: 4, autoResume: true, profilesFile, env: fakeEnv });
  await worker.runUntil(async () => {
    const handle = await env.client.workflow.start('gateSweep', { taskQueue: TASK_QUEUE, workflowId: `gates/${runId}`, args: [input] });
    await untilStopped(handle);
    await handle.executeUpdate('resume', { args: [{}] });
    await handle.result();
  });
  await saveHistory(env, `gates/${runId}`, name);
  await saveHistory(env, `gates/${runId}/batch-1`, `${name}-batch-1`);
  await saveHistory(env, `gates/${runId}/batch-1-r1`, `${name}-batch-1-r1`);
  // The account is named from the scenario as the input carries it (under <state>).
  await saveHistory(env, quotaGateId(quotaAccount({ name: 'fake', harness: 'fake', env: input.env })), 'quota-gate');
}

/** A sweep with `--max-cost` that stops with spend-limit and is resumed with a raised cap (each launch reports $0.10, the cap is $0.15). */
async function recordSpendLimit(env: TestWorkflowEnvironment, name: string): Promise<void> {
  const checkout = await corpusCopy();
  const { worker, fakeEnv, profilesFile } = await recordingWorker(env, name, [{ attempts: [{ review: 'pass', costUsd: 0.1 }] }], fakeProfiles, checkout);
  const runId = `history-${name}`;
  const input = worker.places.toPortable<SweepInput>({ checkout, runId, notes: await someNotes(1), gates: ['frontmatter/*'], criteria: ['gates'], grouping: 'pair', profile: 'fake', concurrency: 1, batchSize: 4, autoResume: false, profilesFile, env: fakeEnv, maxCostUsd: 0.15 });
  await worker.runUntil(async () => {
    const handle = await env.client.workflow.start('gateSweep', { taskQueue: TASK_QUEUE, workflowId: `gates/${runId}`, args: [input] });
    await untilStopped(handle);
    await handle.executeUpdate('resume', { args: [{ maxCostUsd: 10 }] });
    await handle.result();
  });
  await saveHistory(env, `gates/${runId}`, name);
  await saveHistory(env, `gates/${runId}/batch-1`, `${name}-batch-1`);
  await saveHistory(env, `gates/${runId}/batch-1-r1`, `${name}-batch-1-r1`);
}

/** A sweep whose harness never writes a result line: the breaker stops it (systematic-failure) after ten units; resumed once the scenario reviews, it completes. */
async function recordSystematicFailure(env: TestWorkflowEnvironment, name: string): Promise<void> {
  const checkout = await corpusCopy();
  const { worker, fakeEnv, profilesFile } = await recordingWorker(env, name, [{ attempts: [{}] }], { fake: { harness: 'fake', timeout: '1m', attempts: 1 } }, checkout);
  const runId = `history-${name}`;
  const input = worker.places.toPortable<SweepInput>({ checkout, runId, notes: await someNotes(3), gates: ['frontmatter/*'], criteria: ['gates'], grouping: 'pair', profile: 'fake', concurrency: 2, batchSize: 20, autoResume: false, profilesFile, env: fakeEnv });
  await worker.runUntil(async () => {
    const handle = await env.client.workflow.start('gateSweep', { taskQueue: TASK_QUEUE, workflowId: `gates/${runId}`, args: [input] });
    await untilStopped(handle);
    await writeFile(fakeEnv['COMMONPLACE_FAKE_SCENARIO']!, JSON.stringify({ ledger: 'ledger.jsonl', launches: [{ attempts: [{ review: 'pass' }] }] }));
    await handle.executeUpdate('resume', { args: [{}] });
    await handle.result();
  });
  await saveHistory(env, `gates/${runId}`, name);
  await saveHistory(env, `gates/${runId}/batch-1`, `${name}-batch-1`);
  await saveHistory(env, `gates/${runId}/batch-1-r1`, `${name}-batch-1-r1`);
}

/**
 * A recording of `--batch` sweeps on a model-API profile: the Anthropic stand-in answering with `answer`, a
 * worker holding a corpus copy whose profile points at the stand-in, and the sweep's input on that profile.
 */
async function providerBatchRecording(env: TestWorkflowEnvironment, name: string, answer: ReturnType<typeof reply.review>) {
  const checkout = await corpusCopy();
  const standIn = await startStandIn('anthropic', answer);
  standIn.cache.minimumTokens = 64;
  process.env['COMMONPLACE_HISTORY_API_KEY'] = 'stand-in-key';
  const profiles = { 'anthropic-batch': { harness: 'anthropic', model: 'claude-haiku-4-5', 'base-url': standIn.url, 'api-key-env': 'COMMONPLACE_HISTORY_API_KEY', timeout: '1m', 'max-output-tokens': 1024 } };
  const { worker, profilesFile } = await recordingWorker(env, name, [], profiles, checkout);
  const runId = `history-${name}`;
  const input = (extra: Pick<SweepInput, 'notes' | 'gates' | 'batchSize'> & Partial<SweepInput>) =>
    worker.places.toPortable<SweepInput>({ checkout, runId, criteria: ['gates'], grouping: 'pair', profile: 'anthropic-batch', concurrency: 2, autoResume: false, profilesFile, batch: 'always', ...extra });
  const start = (sweep: SweepInput) => env.client.workflow.start('gateSweep', { taskQueue: TASK_QUEUE, workflowId: `gates/${runId}`, args: [sweep] });
  return { standIn, worker, runId, input, start };
}

/** A `--batch` sweep on a model-API profile: its units asked as one provider batch at the Anthropic stand-in, polled on timers, collected and accepted. */
async function recordProviderBatch(env: TestWorkflowEnvironment, name: string): Promise<void> {
  const { standIn, worker, runId, input, start } = await providerBatchRecording(env, name, reply.review('warn', ['The description restates the title.']));
  const sweep = input({ notes: await someNotes(2), gates: ['frontmatter/*'], batchSize: 20 });
  await worker.runUntil(async () => (await start(sweep)).result());
  await standIn.close();
  await saveHistory(env, `gates/${runId}`, name);
  await saveHistory(env, `gates/${runId}/batch-1`, `${name}-batch-1`);
}

/**
 * A `--batch` sweep under `--max-cost` (batch-cap), four units in batches of two: the first provider batch
 * goes whole, and the cap stops the sweep in batch 2; resumed with room for one and a half launches at
 * the mean, batch 2 (`-r1`) submits one of its two units and stops again; resumed with a roomy cap
 * (`-r2`), it completes.
 */
async function recordProviderBatchCapped(env: TestWorkflowEnvironment, name: string): Promise<void> {
  const { standIn, worker, runId, input, start } = await providerBatchRecording(env, name, reply.review('pass'));
  // Each provider batch ends at its first poll: no timer to wait out.
  standIn.batches.endAfterPolls = 1;
  const gates = ['frontmatter/title-as-claim', 'frontmatter/description-discrimination', 'frontmatter/title-body-alignment', 'frontmatter/claim-strength'];
  const sweep = input({ notes: await someNotes(1), gates, batchSize: 2, maxCostUsd: 0.000001 });
  await worker.runUntil(async () => {
    const handle = await start(sweep);
    await untilStopped(handle);
    const { spend } = await handle.query<{ spend: { costUsd: number; launches: number } }>('progress');
    await handle.executeUpdate('resume', { args: [{ maxCostUsd: spend.costUsd * (1 + 1.5 / spend.launches) }] });
    await waitFor('the sweep to stop again after a second provider batch', async () => standIn.batches.list.length === 2 && (await handle.query<{ status: string }>('progress')).status === 'stopped', 10 * 60_000);
    await handle.executeUpdate('resume', { args: [{ maxCostUsd: 10 }] });
    await handle.result();
  });
  await standIn.close();
  const sizes = standIn.batches.list.map((batch) => batch.requests.length).join(', ');
  if (sizes !== '2, 1, 1') throw new Error(`${name}: provider batches of ${sizes} requests, not 2, 1, 1`);
  for (const batch of ['', '/batch-1', '/batch-2', '/batch-2-r1', '/batch-2-r2']) await saveHistory(env, `gates/${runId}${batch}`, `${name}${batch.replace('/', '-')}`);
}

// The test workers load the bundle the jest global setup builds: build it from the current sources first.
const setup = '../helpers/global-setup.js';
await ((await import(setup)) as { default: () => Promise<void> }).default();

// Names on the command line choose what is recorded; a history already kept is recorded again only with --replace.
chooseRecordings(process.argv.slice(2));

const dev = await startDevEnvironment();
if (recordable('probe-completed')) await recordProbe(dev, 'probe-completed', { harness: 'fake' }, [{ writeDeclared: 'probe ok\n' }]);
if (recordable('probe-usage-limit')) await recordProbe(dev, 'probe-usage-limit', { harness: 'claude' }, [{ stdout: 'Claude AI usage limit reached|1767240000\n', exitCode: 1 }]);
if (recordable('probe-timed-out')) await recordProbe(dev, 'probe-timed-out', { harness: 'fake', timeout: '1s' }, [{ hang: true, outputs: {} }]);
if (recordable('probe-failed')) await recordProbe(dev, 'probe-failed', { harness: 'fake' }, [{ usageLimit: 'Claude AI usage limit reached|1767240000' }]);
if (recordable('gates-completed')) await recordSweep(dev, 'gates-completed', [{ match: 'criterion = frontmatter/title-body-alignment', attempts: [{ review: 'pass', malformed: ['frontmatter/title-body-alignment'] }, { review: 'warn' }] }, { attempts: [{ review: 'pass' }] }], {});
if (recordable('gates-bundle')) await recordSweep(dev, 'gates-bundle', [{ attempts: [{ review: 'pass', skip: ['frontmatter/description-discrimination'] }, { review: 'fail' }] }], { grouping: 'bundle' });
if (recordable('gates-stopped-resumed')) await recordSweep(dev, 'gates-stopped-resumed', [{ match: 'criterion = frontmatter/description-discrimination', attempts: [{ usageLimit: 'Claude AI usage limit reached|1767240000' }, { review: 'pass' }] }, { attempts: [{ review: 'pass' }] }], { concurrency: 1 }, true);
if (recordable('gates-exhausted')) await recordSweep(dev, 'gates-exhausted', [{ match: 'criterion = frontmatter/description-discrimination', attempts: [{ outputs: { 'review.md': 'no result line\n' } }] }, { attempts: [{ review: 'pass' }] }], {});
if (recordable('gates-quota-gate')) await recordQuotaGate(dev, 'gates-quota-gate');
if (recordable('gates-spend-limit')) await recordSpendLimit(dev, 'gates-spend-limit');
if (recordable('gates-systematic-failure')) await recordSystematicFailure(dev, 'gates-systematic-failure');
if (recordable('gates-provider-batch')) await recordProviderBatch(dev, 'gates-provider-batch');
if (recordable('gates-provider-batch-capped')) await recordProviderBatchCapped(dev, 'gates-provider-batch-capped');
await recordEditHistories(dev, saveHistory);
await recordEditExhaustedHistory(dev, saveHistory);
await recordAnalysisHistories(dev, saveHistory);
await recordCompareHistories(dev, saveHistory);
await dev.teardown();

const skipping = await startTimeSkippingEnvironment();
if (recordable('probe-relaunched')) await recordProbe(skipping, 'probe-relaunched', { harness: 'fake' }, [{ exitCode: 1 }, { exitCode: 1 }, { writeDeclared: 'probe ok\n' }]);
if (recordable('probe-launch-failed')) await recordProbe(skipping, 'probe-launch-failed', { harness: 'fake' }, [{ exitCode: 2 }]);
await recordAnalysisTimerHistories(skipping, saveHistory);
await skipping.teardown();
failOnRejectedHistories();
