/**
 * The close matrix: every way each workflow kind can close, on a real dev server, and for each the
 * `CommonplaceStatus` search attribute read against the execution status Temporal reports. A
 * terminated workflow records nothing (Temporal runs none of its code), which is why the commands
 * that end runs cancel first; termination is not a row here.
 */
import type { WorkflowHandle } from '@temporalio/client';
import { WorkflowIdConflictPolicy } from '@temporalio/common';
import { editRunId } from '../../src/review/edit/identity.js';
import { editWorkflowId } from '../../src/runs/workflow-ids.js';
import { checkoutId } from '../../src/kb/checkout-id.js';
import type { FullPassInput, ReviseInput } from '../../src/review/edit/types.js';
import type { SweepInput } from '../../src/review/sweep-types.js';
import { CommonplaceKind, CommonplaceStatus, TASK_QUEUE } from '../../src/search-attributes.js';
import { analysis } from '../../src/workflows/analysis.js';
import { fullPass } from '../../src/workflows/full-pass.js';
import { gateSweep } from '../../src/workflows/gate-sweep.js';
import { probe } from '../../src/workflows/probe.js';
import { revise } from '../../src/workflows/revise.js';
import { analysisInput, prepareToy, scratch, toyCheckout, toyProfiles, toyScenario, writes } from '../analysis/helpers.js';
import { fakeScenario, readLedger, waitFor, type FakeRule } from '../helpers/fake.js';
import { expectNoHarnessLeft } from '../helpers/harness-processes.js';
import { corpusCopy, someNotes } from '../helpers/kb.js';
import { fakeProfilesFile, probeInput } from '../helpers/probe.js';
import { useDevServerWithCliWorker } from '../helpers/servers.js';
import { uniqueId } from '../helpers/temporal.js';
import { editedText, editorRule, gitCorpus, NOTE, noteText, reviewsPass, sha256 } from '../review-edit/helpers.js';

// A cancel reaches a running launch with the response to its next heartbeat, which the SDK sends at most every
// 0.8 × the heartbeat timeout (the shipped 15 s: 12 s). The file's runs ask for a clock ten times quicker
// (test/helpers/scaled-clock.ts: a 5 s heartbeat timeout, heartbeats sent every 4 s), on the test bundle's
// worker process; the shipped numbers are proved on the time-skipping server by test/harness/relaunch.test.ts.
const server = useDevServerWithCliWorker({ quickerClock: 10 });
const env = () => server.env();

const attributes = (kind: string) => [
  { key: CommonplaceKind, value: kind },
  { key: CommonplaceStatus, value: 'running' },
];

/** How the run closed: Temporal's execution status, and what the run recorded. */
async function closed(handle: WorkflowHandle): Promise<[string, unknown]> {
  await handle.result().catch(() => undefined);
  const described = await handle.describe();
  return [described.status.name, described.typedSearchAttributes.get(CommonplaceStatus)];
}

/** Waits until the fake harness hangs in a launch (the run is mid-ask), then cancels the run. */
async function cancelWhenHanging(handle: WorkflowHandle, ledger: string): Promise<void> {
  await waitFor('a launch hanging', async () => (await readLedger(ledger)).some((entry) => entry.event === 'hang'), 120_000);
  await handle.cancel();
}

// Analysis.

async function startAnalysisWith(overrides: Parameters<typeof toyScenario>[2], profiles?: (dir: string) => Promise<string>) {
  const prepared = await prepareToy(await toyCheckout());
  const dir = await scratch();
  const { env: fakeEnv, ledger } = await toyScenario(dir, prepared, overrides);
  const handle = await env().client.workflow.start(analysis, {
    taskQueue: TASK_QUEUE,
    workflowId: uniqueId(`analysis/${prepared.runId}`),
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
    args: [analysisInput(prepared, await (profiles ?? toyProfiles)(dir), fakeEnv)],
    typedSearchAttributes: attributes('analysis'),
  });
  return { handle, ledger };
}

describe('an analysis closes with CommonplaceStatus true to its execution status', () => {
  test('a clean run: COMPLETED and completed', async () => {
    const { handle } = await startAnalysisWith(() => ({}));
    expect(await closed(handle)).toEqual(['COMPLETED', 'completed']);
  });

  test('a boundary that says blocked: COMPLETED and blocked', async () => {
    const { handle } = await startAnalysisWith((clean) => ({
      boundary: [writes('boundary', clean.boundary.replace('disposition: published', 'disposition: blocked').replace('is in scope', 'is blocked'))],
    }));
    expect(await closed(handle)).toEqual(['COMPLETED', 'blocked']);
  });

  test('a spent budget: COMPLETED and exhausted', async () => {
    const { handle } = await startAnalysisWith((clean) => ({ 'runtime-report': [writes('runtime-report', `${clean['runtime-report']}\nTBD.\n`)] }));
    expect(await closed(handle)).toEqual(['COMPLETED', 'exhausted']);
  });

  test('a profile that cannot be loaded: FAILED and failed', async () => {
    const { handle } = await startAnalysisWith(
      () => ({}),
      (dir) => fakeProfilesFile(dir, { other: { harness: 'fake', timeout: '1m' } }),
    );
    expect(await closed(handle)).toEqual(['FAILED', 'failed']);
  });

  test('cancelled mid-launch: CANCELLED and cancelled, its harness gone', async () => {
    const { handle, ledger } = await startAnalysisWith(() => ({ 'runtime-report': [{ hang: true }] }));
    await cancelWhenHanging(handle, ledger);
    expect(await closed(handle)).toEqual(['CANCELLED', 'cancelled']);
    await expectNoHarnessLeft(ledger);
  });

  test('cancelled while stopped on a usage limit: CANCELLED and cancelled', async () => {
    const { handle } = await startAnalysisWith(() => ({ 'runtime-report': [{ usageLimit: 'Claude usage limit reached. Your limit will reset at 5pm.' }] }));
    await waitFor('the run stopped', async () => (await handle.describe()).typedSearchAttributes.get(CommonplaceStatus) === 'stopped', 120_000);
    await handle.cancel();
    expect(await closed(handle)).toEqual(['CANCELLED', 'cancelled']);
  });
});

// Gate sweeps.

async function startSweepWith(rules: FakeRule[], extra: Partial<SweepInput> = {}) {
  const checkout = await corpusCopy();
  const dir = await scratch();
  const { env: fakeEnv, ledger } = await fakeScenario(dir, rules);
  const runId = uniqueId('GS').replace(/\//g, '-');
  const input: SweepInput = {
    checkout,
    runId,
    notes: await someNotes(2),
    gates: ['frontmatter/*'],
    grouping: 'pair',
    profile: 'fake',
    concurrency: 2,
    batchSize: 5,
    autoResume: false,
    profilesFile: await fakeProfilesFile(dir, { fake: { harness: 'fake', timeout: '1m', attempts: 2 } }),
    env: fakeEnv,
    ...extra,
  };
  const handle = await env().client.workflow.start(gateSweep, {
    taskQueue: TASK_QUEUE,
    workflowId: `gates/${runId}`,
    args: [input],
    typedSearchAttributes: attributes('gate-sweep'),
  });
  return { handle, ledger };
}

describe('a gate sweep closes with CommonplaceStatus true to its execution status', () => {
  test('every pair answered: COMPLETED and completed', async () => {
    const { handle } = await startSweepWith([{ attempts: [{ review: 'pass' }] }]);
    expect(await closed(handle)).toEqual(['COMPLETED', 'completed']);
  });

  test('pairs that spend their budget: COMPLETED and exhausted', async () => {
    const { handle } = await startSweepWith([{ attempts: [{ outputs: { 'review.md': 'no result line here\n' } }] }]);
    expect(await closed(handle)).toEqual(['COMPLETED', 'exhausted']);
  });

  test('a profile that does not exist: FAILED and failed', async () => {
    const { handle } = await startSweepWith([{ attempts: [{ review: 'pass' }] }], { profile: 'nope' });
    expect(await closed(handle)).toEqual(['FAILED', 'failed']);
  });

  test('cancelled mid-launch: CANCELLED and cancelled, its harness gone', async () => {
    const { handle, ledger } = await startSweepWith([{ attempts: [{ hang: true }] }]);
    await cancelWhenHanging(handle, ledger);
    expect(await closed(handle)).toEqual(['CANCELLED', 'cancelled']);
    await expectNoHarnessLeft(ledger);
  });
});

describe("a gate sweep's batch closes with CommonplaceStatus true to its execution status", () => {
  const batchOf = (handle: WorkflowHandle) => env().client.workflow.getHandle(`${handle.workflowId}/batch-1`);

  test('a batch that asked all its units: COMPLETED and completed', async () => {
    const { handle } = await startSweepWith([{ attempts: [{ review: 'pass' }] }]);
    await closed(handle);
    expect(await closed(batchOf(handle))).toEqual(['COMPLETED', 'completed']);
  });

  test('a batch that hands its sweep a stop: COMPLETED and completed, while the sweep is stopped', async () => {
    const { handle } = await startSweepWith([{ attempts: [{ usageLimit: 'Claude usage limit reached. Your limit will reset at 5pm.' }] }]);
    await waitFor('the sweep stopped', async () => (await handle.describe()).typedSearchAttributes.get(CommonplaceStatus) === 'stopped', 120_000);
    expect(await closed(batchOf(handle))).toEqual(['COMPLETED', 'completed']);
    await handle.cancel();
    expect(await closed(handle)).toEqual(['CANCELLED', 'cancelled']);
  });

  test('a batch whose sweep is cancelled mid-launch: CANCELLED and cancelled, its harness gone', async () => {
    const { handle, ledger } = await startSweepWith([{ attempts: [{ hang: true }] }]);
    await cancelWhenHanging(handle, ledger);
    await closed(handle);
    await waitFor('the batch closed', async () => (await batchOf(handle).describe()).status.name !== 'RUNNING', 120_000);
    expect(await closed(batchOf(handle))).toEqual(['CANCELLED', 'cancelled']);
    await expectNoHarnessLeft(ledger);
  });
});

// Full passes and revisions.

async function startEditWith(kind: 'full-pass' | 'revise', rules: (start: string) => FakeRule[], extra: Partial<FullPassInput & ReviseInput> = {}) {
  const checkout = await gitCorpus();
  const start = await noteText(checkout);
  const dir = await scratch();
  const { env: fakeEnv, ledger } = await fakeScenario(dir, rules(start));
  const base = {
    checkout,
    note: NOTE,
    noteSha256: sha256(start),
    runId: editRunId(kind, NOTE, sha256(start), sha256(NOTE)),
    concurrency: 2,
    profilesFile: await fakeProfilesFile(dir, { fake: { harness: 'fake', timeout: '1m', attempts: 2 } }),
    env: fakeEnv,
  };
  const options = {
    taskQueue: TASK_QUEUE,
    workflowId: editWorkflowId(kind, await checkoutId(checkout), NOTE, sha256(start)),
    typedSearchAttributes: attributes(kind),
  };
  const planText = 'passes:\n  - tighten\n';
  const handle =
    kind === 'full-pass'
      ? await env().client.workflow.start(fullPass, { ...options, args: [{ ...base, options: { profile: 'fake', direction: null }, ...extra }] })
      : await env().client.workflow.start(revise, {
          ...options,
          args: [{ ...base, options: { profile: 'fake', mode: 'plan', planSha256: sha256(planText) }, planText, ...extra }],
        });
  return { handle, ledger };
}

const noEdit = { match: '^job = edit$', attempts: [{ outputs: { 'edited.md': '', 'decision.md': 'Nothing to resolve.\n\nDecision: no-edit\n' } }] };

describe('a full pass closes with CommonplaceStatus true to its execution status', () => {
  test('no edit, published at once: COMPLETED and completed', async () => {
    const { handle } = await startEditWith('full-pass', () => [noEdit, { attempts: [reviewsPass] }]);
    expect(await closed(handle)).toEqual(['COMPLETED', 'completed']);
  });

  test('an editor that never writes its outputs: COMPLETED and exhausted', async () => {
    const { handle } = await startEditWith('full-pass', () => [
      { match: '^job = edit$', attempts: [{ outputs: { 'notes.txt': 'no edit file\n' } }] },
      { attempts: [reviewsPass] },
    ]);
    expect(await closed(handle)).toEqual(['COMPLETED', 'exhausted']);
  });

  test('cancelled while awaiting approval: CANCELLED and cancelled', async () => {
    const { handle } = await startEditWith('full-pass', (start) => [editorRule({ edited: editedText(start), decision: 'edit' }), { attempts: [reviewsPass] }]);
    await waitFor(
      'the run awaiting approval',
      async () => (await handle.describe()).typedSearchAttributes.get(CommonplaceStatus) === 'awaiting-approval',
      120_000,
    );
    await handle.cancel();
    expect(await closed(handle)).toEqual(['CANCELLED', 'cancelled']);
  });

  test('a note that is not in the checkout: FAILED and failed', async () => {
    const { handle } = await startEditWith('full-pass', () => [noEdit, { attempts: [reviewsPass] }], { note: 'kb/notes/no-such-note.md' });
    expect(await closed(handle)).toEqual(['FAILED', 'failed']);
  });

  test('cancelled mid-launch: CANCELLED and cancelled, its harness gone', async () => {
    const { handle, ledger } = await startEditWith('full-pass', () => [{ attempts: [{ hang: true }] }]);
    await cancelWhenHanging(handle, ledger);
    expect(await closed(handle)).toEqual(['CANCELLED', 'cancelled']);
    await expectNoHarnessLeft(ledger);
  });
});

describe('a revision closes with CommonplaceStatus true to its execution status', () => {
  test('a pass that changes nothing: COMPLETED and completed', async () => {
    const { handle } = await startEditWith('revise', (start) => [{ match: '^job = revise$', attempts: [{ outputs: { 'edited.md': start } }] }]);
    expect(await closed(handle)).toEqual(['COMPLETED', 'completed']);
  });

  test('a pass that never writes its output: COMPLETED and exhausted', async () => {
    const { handle } = await startEditWith('revise', () => [{ match: '^job = revise$', attempts: [{ outputs: { 'other.md': 'x\n' } }] }]);
    expect(await closed(handle)).toEqual(['COMPLETED', 'exhausted']);
  });

  test('cancelled mid-launch: CANCELLED and cancelled, its harness gone', async () => {
    const { handle, ledger } = await startEditWith('revise', () => [{ attempts: [{ hang: true }] }]);
    await cancelWhenHanging(handle, ledger);
    expect(await closed(handle)).toEqual(['CANCELLED', 'cancelled']);
    await expectNoHarnessLeft(ledger);
  });
});

// Probes.

async function startProbeWith(rules: FakeRule[]) {
  const dir = await scratch();
  const { env: fakeEnv, ledger } = await fakeScenario(dir, rules);
  const id = uniqueId('probe');
  const handle = await env().client.workflow.start(probe, {
    taskQueue: TASK_QUEUE,
    workflowId: id,
    args: [probeInput(id.replace(/\//g, '-'), 'fake', await fakeProfilesFile(dir, { fake: { harness: 'fake', timeout: '1m' } }), fakeEnv)],
    typedSearchAttributes: attributes('probe'),
  });
  return { handle, ledger };
}

describe('a probe closes with CommonplaceStatus true to its execution status', () => {
  test('a launch that completes: COMPLETED and completed', async () => {
    const { handle } = await startProbeWith([{ attempts: [{}] }]);
    expect(await closed(handle)).toEqual(['COMPLETED', 'completed']);
  });

  test('a launch that hits a usage limit: FAILED and failed', async () => {
    const { handle } = await startProbeWith([{ attempts: [{ usageLimit: 'Claude usage limit reached. Your limit will reset at 5pm.' }] }]);
    expect(await closed(handle)).toEqual(['FAILED', 'failed']);
  });

  test('cancelled mid-launch: CANCELLED and cancelled, its harness gone', async () => {
    const { handle, ledger } = await startProbeWith([{ attempts: [{ hang: true }] }]);
    await cancelWhenHanging(handle, ledger);
    expect(await closed(handle)).toEqual(['CANCELLED', 'cancelled']);
    await expectNoHarnessLeft(ledger);
  });
});
