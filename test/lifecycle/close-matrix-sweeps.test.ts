/**
 * The close matrix: every way each workflow kind can close, on a real dev server, and for each the
 * `CommonplaceStatus` search attribute read against the execution status Temporal reports. A
 * terminated workflow records nothing (Temporal runs none of its code), which is why the commands
 * that end runs cancel first; termination is not a row here.
 *
 * This file: gate sweeps and their batches; analyses are close-matrix-runs.test.ts, full passes, revisions
 * and probes close-matrix-edits.test.ts (test/lifecycle/close-matrix.ts holds what they share).
 */
import type { WorkflowHandle } from '@temporalio/client';
import type { SweepInput } from '../../src/review/sweep-types.js';
import { CommonplaceStatus } from '../../src/search-attributes.js';
import { waitFor, type FakeRule } from '../helpers/fake.js';
import { expectNoHarnessLeft } from '../helpers/harness-processes.js';
import { startSweep, fakeSweep } from '../helpers/sweep.js';
import { attributes, cancelWhenHanging, closed, useCloseMatrixServer } from './close-matrix.js';

const server = useCloseMatrixServer();
const env = () => server.env();

// Gate sweeps.

async function startSweepWith(rules: FakeRule[], extra: Partial<SweepInput> = {}) {
  const sweep = await fakeSweep(rules, { notes: 2, profiles: { fake: { harness: 'fake', timeout: '1m', attempts: 2 } } });
  const handle = await startSweep(env(), sweep.input({ concurrency: 2, batchSize: 5, ...extra }), { typedSearchAttributes: attributes('gate-sweep') });
  return { handle, ledger: sweep.ledger };
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
