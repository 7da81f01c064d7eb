/**
 * The close matrix's shared parts: its server, the search attributes a run starts with, and how a run
 * closed. The matrix is two files, each with a worker process of its own: close-matrix-runs.test.ts
 * (analyses, gate sweeps and their batches) and close-matrix-edits.test.ts (full passes, revisions and probes).
 */
import type { WorkflowHandle } from '@temporalio/client';
import { CommonplaceKind, CommonplaceStatus } from '../../src/search-attributes.js';
import { readLedger, waitFor } from '../helpers/fake.js';
import { useDevServerWithCliWorker, type ServerFixture } from '../helpers/servers.js';

/**
 * The file's server and its worker process. A cancel reaches a running launch with the response to its next
 * heartbeat, which the SDK sends at most every 0.8 × the heartbeat timeout (the shipped 15 s: 12 s). The
 * matrix's runs ask for a clock ten times quicker (test/helpers/scaled-clock.ts: a 5 s heartbeat timeout,
 * heartbeats sent every 4 s), on the test bundle's worker process; the shipped numbers are proved on the
 * time-skipping server by test/harness/relaunch.test.ts.
 */
export function useCloseMatrixServer(): ServerFixture {
  return useDevServerWithCliWorker({ quickerClock: 10 });
}

export const attributes = (kind: string) => [
  { key: CommonplaceKind, value: kind },
  { key: CommonplaceStatus, value: 'running' },
];

/** How the run closed: Temporal's execution status, and what the run recorded. */
export async function closed(handle: WorkflowHandle): Promise<[string, unknown]> {
  await handle.result().catch(() => undefined);
  const described = await handle.describe();
  return [described.status.name, described.typedSearchAttributes.get(CommonplaceStatus)];
}

/** Waits until the fake harness hangs in a launch (the run is mid-ask), then cancels the run. */
export async function cancelWhenHanging(handle: WorkflowHandle, ledger: string): Promise<void> {
  await waitFor('a launch hanging', async () => (await readLedger(ledger)).some((entry) => entry.event === 'hang'), 120_000);
  await handle.cancel();
}
