import { createHarnessActivities, type HarnessDependencies } from './harness/launch.js';
import { createProbeActivities } from './probe/probe.js';
import { createSweepActivities } from './review/sweep/index.js';
import { createCompareActivities } from './review/compare/index.js';
import { createEditActivities } from './review/edit/index.js';
import { createAnalysisActivities } from './analysis/index.js';
import { createQuotaActivities } from './quota/quota.js';
import { allHeartbeating } from './heartbeat.js';
import { HostPlaces, portableError } from '../checkout/index.js';

export type {
  LaunchActivity,
  LaunchInput,
  LaunchResult,
  OutputDigest,
  UsageLimitDetails,
  LaunchExitDetails,
  LaunchErrorType,
} from '../harness/launch-contract.js';
export { nonRetryableLaunchErrors } from '../harness/launch-contract.js';
export type { PrepareProbeInput, PreparedProbe } from './probe/probe.js';

export interface ActivityDependencies extends HarnessDependencies {
  /** Where run state the worker writes lives (review and probe launch directories). */
  stateDir: string;
  /** The checkouts this worker holds, and its other roots: place tokens resolve through them (none given: no checkout held). */
  places?: HostPlaces;
}

type AnyActivity = (...args: never[]) => Promise<unknown>;

/** Every activity reading its input's place tokens as this host's paths, and returning (or failing with) its paths as tokens. */
function placed<T extends Record<string, AnyActivity>>(activities: T, places: HostPlaces): T {
  const wrap =
    (activity: AnyActivity) =>
    async (...args: never[]) => {
      try {
        return places.toPortable(await activity(...(places.toHost(args) as never[])));
      } catch (error) {
        throw portableError(error, places);
      }
    };
  // Each keeps its function's name (a heartbeating one is `wrapped`): only the registration's key names an activity.
  const named = (activity: AnyActivity) => Object.defineProperty(wrap(activity), 'name', { value: activity.name });
  return Object.fromEntries(Object.entries(activities).map(([name, activity]) => [name, named(activity)])) as T;
}

/** Every activity the worker registers, built over its dependencies (the samples' injection pattern). */
export function createActivities(dependencies: ActivityDependencies) {
  const places = dependencies.places ?? new HostPlaces({ stateDir: dependencies.stateDir });
  const harness = createHarnessActivities({
    portable: (value) => places.toPortable(value),
    checkoutDirs: () => places.checkouts().flatMap((checkout) => [checkout.root, checkout.worktrees]),
    ...dependencies,
  });
  const activities = allHeartbeating(
    {
      ...harness,
      ...createProbeActivities(dependencies),
      ...createSweepActivities({ ...dependencies, launch: harness.launch }),
      ...createCompareActivities(),
      ...createEditActivities(dependencies),
      ...createAnalysisActivities(dependencies),
      ...createQuotaActivities(),
    },
    ['launch', 'reviewUnit'],
  );
  return placed(activities, places);
}

export type Activities = ReturnType<typeof createActivities>;
