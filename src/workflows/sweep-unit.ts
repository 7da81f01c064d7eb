/** One unit of a gate batch, read top to bottom: capture → ask → accept → the breaker judges it; `checked` re-asks with the findings. */
import { metricMeter, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import { RETURNED_OUTPUT_CAP, type LaunchResult } from '../harness/launch-contract.js';
import type { Profile } from '../harness/profiles.js';
import type { Finding } from '../kb/findings.js';
import { settleUnit, type BreakerState } from '../review/breaker.js';
import type { AcceptedResult, AcceptOutcome, CompareTarget, SweepCounts, SweepProblem, SweepUnit } from '../review/sweep-types.js';
import { namedPaths, type Stop, type StopOf } from '../runs/stop.js';
import { recordPairsReviewed } from '../observability/metrics.js';
import { launchOnce, launchOptions, type LaunchOnce } from './asking/ask.js';
import { checked, findingMessages } from './asking/checked.js';
import { paceLaunch } from './asking/pace.js';
import type { Spend } from './spend-cap.js';

export const unitActivities = proxyActivities<Activities>({ startToCloseTimeout: '2m', heartbeatTimeout: '30s', retry: { maximumAttempts: 5 } });

/** A failed unit the breaker holds back from the problems: what to ask again, and its problems. */
export interface HeldUnit {
  pending: SweepUnit;
  problems: SweepProblem[];
}

export interface UnitPath {
  runId: string;
  checkout: string;
  /** Per-criterion routing's profile, or the sweep's. */
  profile: Profile;
  /** The batch's counts (the spend's totals too). */
  counts: SweepCounts;
  spend: Spend;
  /** The KB snapshot the batch began with: an answer whose launch ran while the KB changed is not accepted. */
  guard: string;
  /** One state for every unit of the batch. */
  breaker: { state: BreakerState<HeldUnit> };
  record: (problems: readonly SweepProblem[]) => void;
  /** A compare run's route: accepted verdicts go to that run's directory instead of the KB's result files. */
  compare?: CompareTarget;
  /** The unit's first attempt as the provider batch answered it, judged with its group (`acceptUnits`). */
  batched?: AcceptOutcome;
}

/** Where a unit's path ended: a stop (with the criteria not yet accepted), or settled (accepted, a problem, or held by the breaker, which may stop the batch). */
export type UnitEnd = { kind: 'stopped'; stop: Stop; pending: SweepUnit } | { kind: 'settled'; stop?: Stop };

type Asked =
  | { stop: Stop; pending: SweepUnit }
  | { stop?: undefined; pending: SweepUnit; launches: number; failed?: { problems: SweepProblem[]; findings: Finding[]; accepted: number } };

export function unitName(unit: SweepUnit): string {
  return `${unit.note} × ${unit.criteria.length === 1 ? unit.criteria[0]!.id : `${unit.lens} (${unit.criteria.length} gates)`}`;
}

export async function sweepUnit(unit: SweepUnit, path: UnitPath): Promise<UnitEnd> {
  const asked = await askUnit(unit, path);
  if (asked.stop !== undefined) return { kind: 'stopped', stop: asked.stop, pending: asked.pending };
  return settle(unit, asked, path);
}

async function askUnit(unit: SweepUnit, path: UnitPath): Promise<Asked> {
  const { profile, counts } = path;
  // Each criterion's findings from its last refused try (a spent launch refuses every criterion it was asked).
  const refusals = new Map<string, Finding[]>();
  const result = await checked<SweepUnit, AcceptedResult>(unit, profile.attempts, async ({ input: pending, attempt, findings }) => {
    // The spend (whose totals are `counts`) adds the launch, its tokens and its cost.
    const ran = (launched: LaunchResult) => {
      counts.tries += launched.try;
      paceLaunch(launched);
    };
    let outcome: LaunchOnce<Judged>;
    if (attempt === 1 && path.batched !== undefined) {
      // The provider batch answered the first attempt: counted when its results were collected, judged in a group.
      outcome = judged(path.batched, `${path.runId}/${pending.key}/batch`);
    } else if (askedInOne(profile)) {
      // A model API's try is one activity that captures, asks (or adopts the run's answer) and accepts (`askInOne` below).
      outcome = await askInOne(pending, { attempt, findings, name: unitName(pending) }, path, ran);
    } else {
      // Capture: the unit's inputs as they stand, and the run's answer to the same ask when any execution of it had one.
      const captured = await unitActivities.captureUnit.executeWithOptions({ summary: `capture ${unitName(pending)}, attempt ${attempt}` }, [
        {
          runId: path.runId,
          checkout: path.checkout,
          unit: pending,
          attempt,
          findings,
          profile: profile.name,
        },
      ]);
      const launchId = `${path.runId}/${pending.key}/${attempt}`;
      outcome =
        captured.adopted !== undefined
          ? await acceptAnswer(pending, attempt, undefined, path)
          : await launchOnce(
              {
                launchId,
                profile,
                prompt: captured.prompt,
                outputs: captured.outputs,
                // The launch carries the captured inputs and returns its output (whole up to the returned cap: the run's answers keep it for any later cap): it runs on any worker.
                dir: captured.launchDir,
                files: captured.files,
                returnOutputs: { maxBytes: RETURNED_OUTPUT_CAP },
              },
              `${unitName(pending)}, attempt ${attempt}`,
              (launched) => acceptAnswer(pending, attempt, launched, path),
              ran,
              path.spend,
            );
    }
    if (outcome.kind === 'stop') return outcome;
    if (outcome.kind === 'spent') {
      for (const criterion of pending.criteria) refusals.set(criterion.id, outcome.findings);
      return outcome;
    }
    const { check } = outcome;
    for (const written of check.written) counts.written[written.outcome] += 1;
    recordPairsReviewed(metricMeter, check.written);
    counts.staleOnArrival += check.staleOnArrival.length;
    counts.pairsDone += check.written.length + check.staleOnArrival.length;
    for (const rejected of check.rejected) refusals.set(rejected.criterion, rejected.findings);
    const again = new Set(check.rejected.map((rejected) => rejected.criterion));
    return {
      kind: 'checked',
      accepted: check.written,
      // Each finding names its criterion (a recorded history's plain strings are passed on as they are).
      findings: check.rejected.flatMap((rejected) => rejected.findings),
      next: { ...pending, criteria: pending.criteria.filter((criterion) => again.has(criterion.id)) },
    };
  });
  if (result.status === 'stopped') {
    // A unit asked anew that got a fresh answer before the stop is judged from that answer on the resume.
    const { reask: _reask, ...judged } = result.pending;
    return { stop: result.stop, pending: result.attempts > 0 ? judged : result.pending };
  }
  if (result.status === 'exhausted') {
    const failed = result.pending.criteria.map((criterion): SweepProblem => {
      const findings = refusals.get(criterion.id) ?? [];
      const why = findingMessages(findings) || 'no accepted output';
      return {
        note: unit.note,
        criterion: criterion.id,
        reason: `attempt budget (${profile.attempts}) spent: ${why}`.slice(0, 500),
        ...(findings.length > 0 && { findings }),
      };
    });
    // `pending` is what a tripped breaker asks again.
    return {
      pending: result.pending,
      launches: result.attempts,
      failed: {
        problems: failed,
        findings: result.pending.criteria.flatMap((criterion) => refusals.get(criterion.id) ?? []),
        accepted: result.accepted.length,
      },
    };
  }
  return { pending: { ...unit, criteria: [] }, launches: result.attempts };
}

/** Records a fresh answer in the run's answers, then checks and writes it unless the KB changed since the batch's snapshot; without a launch it judges the recorded answer. */
async function acceptAnswer(pending: SweepUnit, attempt: number, launched: LaunchResult | undefined, path: UnitPath): Promise<Judged> {
  const { profile, compare } = path;
  const check = await unitActivities.acceptUnit.executeWithOptions({ summary: `accept ${unitName(pending)}, attempt ${attempt}` }, [
    {
      runId: path.runId,
      checkout: path.checkout,
      unit: pending,
      attempt,
      guard: path.guard,
      ...(launched !== undefined && { launch: launched }),
      ...(profile.maxOutputBytes !== undefined && { maxOutputBytes: profile.maxOutputBytes }),
      ...(compare !== undefined && { compare }),
    },
  ]);
  return judged(check, launched?.launchId ?? `${path.runId}/${pending.key}/${attempt}`);
}

type Judged = { kind: 'stop'; stop: StopOf<'checkout-changed'> } | { kind: 'accepted'; check: AcceptOutcome };

/** A KB that changed under the answer stops the batch; the answer stays recorded, to be judged after the acknowledge. */
function judged(check: AcceptOutcome, launchId: string): Judged {
  return check.changed !== undefined ? { kind: 'stop', stop: checkoutChanged(check.changed, launchId) } : { kind: 'accepted', check };
}

/** A unit that spent its budget with nothing accepted counts as failed; one with any accepted criterion counts as accepted, its refused criteria problems. */
function settle(unit: SweepUnit, asked: Extract<Asked, { stop?: undefined }>, path: UnitPath): UnitEnd {
  const { failed } = asked;
  const step = settleUnit(
    path.breaker.state,
    failed && failed.accepted === 0
      ? {
          outcome: 'failed',
          name: unitName(unit),
          launches: asked.launches,
          findings: failed.findings,
          item: { pending: asked.pending, problems: failed.problems },
        }
      : { outcome: 'accepted' },
  );
  if (failed && failed.accepted > 0) path.record(failed.problems);
  path.breaker.state = step.state;
  for (const held of step.record) path.record(held.problems);
  return { kind: 'settled', ...(step.stop !== undefined && { stop: step.stop }) };
}

function checkoutChanged(paths: string[], launchId: string): StopOf<'checkout-changed'> {
  return {
    kind: 'checkout-changed',
    disposition: 'inspect',
    reason: `the KB changed outside review state while launch ${launchId} ran: ${namedPaths(paths)}; its answer was not accepted — restore the paths, or own them, then acknowledge`,
    paths,
  };
}

/** The output a review writes (src/activities/review/sweep/run-dir.ts). */
const REVIEW_OUTPUT = 'review.md';
/** What a model-API request always reports the same: no process, one turn, no tools. */
const API_LAUNCH = { outputs: [], logDir: '', exitCode: 0, modelSource: 'harness', turns: 1, toolUses: 0 } satisfies Partial<LaunchResult>;

/**
 * A model API's unit asks in one activity (`reviewUnit`: capture → request → accept) where a CLI's takes three: a request needs no
 * process of its own, so a sweep pays one activity's events a try. The quota gate and the spend decide before it as before any launch.
 */
function askedInOne(profile: Profile): boolean {
  return profile.harness === 'anthropic' || profile.harness === 'openai';
}

async function askInOne(
  pending: SweepUnit,
  try_: { attempt: number; findings: Finding[]; name: string },
  path: UnitPath,
  ran: (launched: LaunchResult) => void,
): Promise<LaunchOnce<Judged>> {
  const { profile } = path;
  const launchId = `${path.runId}/${pending.key}/${try_.attempt}`;
  const { reviewUnit } = proxyActivities<Activities>(launchOptions(profile, try_.attempt === 1 ? try_.name : `${try_.name}, attempt ${try_.attempt}`));
  let reviewed: Awaited<ReturnType<Activities['reviewUnit']>> | undefined;
  return launchOnce(
    { launchId, profile, dir: '', prompt: '', outputs: [REVIEW_OUTPUT] },
    try_.name,
    async () => judged({ written: [], rejected: [], staleOnArrival: [], ...reviewed!.check }, launchId),
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
      // The activity's figures, with what the workflow knows of the launch itself.
      return { missing: [], timedOut: false, ...reviewed.launch, launchId, profile: profile.name, harness: profile.harness, ...API_LAUNCH };
    },
  );
}
