/**
 * The close matrix: every way each workflow kind can close, on a real dev server, and for each the
 * `CommonplaceStatus` search attribute read against the execution status Temporal reports. A
 * terminated workflow records nothing (Temporal runs none of its code), which is why the commands
 * that end runs cancel first; termination is not a row here.
 *
 * This file: analyses; gate sweeps and their batches are close-matrix-sweeps.test.ts, full passes, revisions
 * and probes close-matrix-edits.test.ts (test/lifecycle/close-matrix.ts holds what they share).
 */
import { WorkflowIdConflictPolicy } from '@temporalio/common';
import { CommonplaceStatus, TASK_QUEUE } from '../../src/search-attributes.js';
import { analysis } from '../../src/workflows/analysis.js';
import { analysisInput, prepareToy, scratch, toyCheckout, toyProfiles, toyScenario, writes } from '../analysis/helpers.js';
import { waitFor } from '../helpers/fake.js';
import { expectNoHarnessLeft } from '../helpers/harness-processes.js';
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
