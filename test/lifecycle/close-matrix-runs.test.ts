/**
 * The close matrix: every way each workflow kind can close, on a real dev server, and for each the
 * `CommonplaceStatus` search attribute read against the execution status Temporal reports. A
 * terminated workflow records nothing (Temporal runs none of its code), which is why the commands
 * that end runs cancel first; termination is not a row here.
 *
 * This file: analyses, gate sweeps and their batches; full passes, revisions and probes are
 * close-matrix-edits.test.ts (test/lifecycle/close-matrix.ts holds what both use).
 */
import type { WorkflowHandle } from '@temporalio/client';
import { WorkflowIdConflictPolicy } from '@temporalio/common';
import type { SweepInput } from '../../src/review/sweep-types.js';
import { CommonplaceStatus, TASK_QUEUE } from '../../src/search-attributes.js';
import { analysis } from '../../src/workflows/analysis.js';
import { gateSweep } from '../../src/workflows/gate-sweep.js';
import { analysisInput, prepareToy, scratch, toyCheckout, toyProfiles, toyScenario, writes } from '../analysis/helpers.js';
import { fakeScenario, waitFor, type FakeRule } from '../helpers/fake.js';
import { expectNoHarnessLeft } from '../helpers/harness-processes.js';
import { corpusCopy, someNotes } from '../helpers/kb.js';
import { fakeProfilesFile } from '../helpers/probe.js';
import { uniqueId } from '../helpers/temporal.js';
import { attributes, cancelWhenHanging, closed, useCloseMatrixServer } from './close-matrix.js';

const server = useCloseMatrixServer();
const env = () => server.env();

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
