/** The candidate check as an activity: the run's layout and type registry from the worker, the check itself in check.ts. */
import { assertedHere } from './assert-environment.js';
import { runCheck } from './check.js';
import { guarded } from './failures.js';
import { readParameters } from './runs.js';
import type { CheckInput, CheckOutcome } from './types.js';
import type { AnalysisWorkerState } from './worker-state.js';

/** Checks a candidate (or re-checks a member) in its role against the round's snapshot. */
export async function checkCandidate(worker: AnalysisWorkerState, input: CheckInput): Promise<CheckOutcome> {
  return guarded(input.runDir, async () => {
    await assertedHere(worker.asserted, input.runDir);
    const layout = await worker.layoutFor(input.worktree, input.layoutFile, input.layoutSha256);
    const parameters = await readParameters(input.runDir);
    return runCheck(input, { layout, registry: worker.registryFor(input.worktree), parameters });
  });
}
