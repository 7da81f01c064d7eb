import { createHarnessActivities, type HarnessDependencies } from './harness/launch.js';
import { createProbeActivities } from './probe/probe.js';
import { createSweepActivities } from './review/sweep.js';
import { createSweepGuardActivities } from './review/sweep-guard.js';
import { createEditActivities } from './review/edit/index.js';
import { createAnalysisActivities } from './analysis/activities.js';
import { createQuotaActivities } from './quota/quota.js';
import { allHeartbeating } from './heartbeat.js';

export type { LaunchActivity, LaunchInput, LaunchResult, OutputDigest, UsageLimitDetails, LaunchExitDetails, LaunchErrorType } from '../harness/launch-contract.js';
export { nonRetryableLaunchErrors } from '../harness/launch-contract.js';
export type { PrepareProbeInput, PreparedProbe } from './probe/probe.js';

export interface ActivityDependencies extends HarnessDependencies {
  /** Where run state the worker writes lives (probe launch directories, for now). */
  stateDir: string;
}

/** Every activity the worker registers, built over its dependencies (the samples' injection pattern). */
export function createActivities(dependencies: ActivityDependencies) {
  return allHeartbeating(
    {
      ...createHarnessActivities(dependencies),
      ...createProbeActivities(dependencies),
      ...createSweepActivities(),
      ...createSweepGuardActivities(),
      ...createEditActivities(),
      ...createAnalysisActivities(),
      ...createQuotaActivities(),
    },
    ['launch'],
  );
}

export type Activities = ReturnType<typeof createActivities>;
