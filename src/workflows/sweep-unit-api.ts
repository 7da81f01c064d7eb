/**
 * A model-API unit's try as one activity (`reviewUnit`: capture → request → accept, on the checkout's
 * host) instead of the three a CLI unit's try takes: a request needs no process of its own, so the steps
 * run where the inputs are, and a sweep pays one activity's events a try. The quota gate and the spend
 * decide before it as before any launch (`launchOnce`); an answer the run already had is adopted by the
 * activity and counted nowhere again; a stop, a spent attempt and an accepted answer come back in the
 * same shapes as the CLI path's.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { Profile } from '../harness/profiles.js';
import type { Finding } from '../kb/findings.js';
import type { CompareTarget, SweepUnit } from '../review/sweep-types.js';
import { launchOptions, launchOnce, type LaunchOnce } from './asking/ask.js';
import type { LaunchResult } from '../harness/launch-contract.js';
import type { StopOf } from '../runs/stop.js';
import type { Spend } from './spend-cap.js';

/** What a model-API unit's try needs of its unit's path (sweep-unit.ts's `UnitPath`). */
export interface InOnePath {
  runId: string;
  checkout: string;
  profile: Profile;
  spend: Spend;
  /** The batch's KB snapshot. */
  guard: string;
  compare?: CompareTarget;
}

/** The output a review writes (src/activities/review/sweep/run-dir.ts). */
const REVIEW_OUTPUT = 'review.md';

/** Whether a profile's units are asked in one activity: a model API's. */
export function askedInOne(profile: Profile): boolean {
  return profile.harness === 'anthropic' || profile.harness === 'openai';
}

type Accepted = { kind: 'accepted'; check: Awaited<ReturnType<Activities['acceptUnit']>> };

/** One try of a model-API unit: the activity's answer checked and accepted there, or a stop, or a spent attempt. */
export async function askInOne(
  pending: SweepUnit,
  try_: { attempt: number; findings: Finding[]; name: string },
  path: InOnePath,
  ran: (launched: LaunchResult) => void,
  checkoutChanged: (paths: string[], launchId: string) => StopOf<'checkout-changed'>,
): Promise<LaunchOnce<Accepted | { kind: 'stop'; stop: StopOf<'checkout-changed'> }>> {
  const { profile } = path;
  const launchId = `${path.runId}/${pending.key}/${try_.attempt}`;
  const { reviewUnit } = proxyActivities<Activities>(launchOptions(profile, try_.attempt === 1 ? try_.name : `${try_.name}, attempt ${try_.attempt}`));
  let reviewed: Awaited<ReturnType<Activities['reviewUnit']>> | undefined;
  return launchOnce(
    { launchId, profile, dir: '', prompt: '', outputs: [REVIEW_OUTPUT] },
    try_.name,
    async () => {
      const check: Accepted['check'] = { written: [], rejected: [], staleOnArrival: [], ...(reviewed as NonNullable<typeof reviewed>).check };
      if (check.changed !== undefined) return { kind: 'stop', stop: checkoutChanged(check.changed, launchId) };
      return { kind: 'accepted', check };
    },
    ran,
    path.spend,
    async () => {
      reviewed = await reviewUnit({
        runId: path.runId,
        checkout: path.checkout,
        unit: pending,
        attempt: try_.attempt,
        ...(try_.findings.length > 0 && { findings: try_.findings }),
        profile: profile.name,
        guard: path.guard,
        ...(profile.maxOutputBytes !== undefined && { maxOutputBytes: profile.maxOutputBytes }),
        ...(path.compare !== undefined && { compare: path.compare }),
      });
      // The figures the activity returns, with what the workflow knows of the launch itself.
      return {
        missing: [],
        timedOut: false,
        ...reviewed.launch,
        launchId,
        profile: profile.name,
        harness: profile.harness,
        outputs: [],
        logDir: '',
        exitCode: 0,
        modelSource: 'harness',
        turns: 1,
        toolUses: 0,
      };
    },
  );
}
