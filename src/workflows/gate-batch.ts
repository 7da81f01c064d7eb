import { ActivityFailure, continueAsNew, isCancellation, metricMeter, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { LaunchResult } from '../harness/launch-contract.js';
import type { Profile } from '../harness/profiles.js';
import type { Finding } from '../kb/findings.js';
import type { AcceptedResult, CapturedUnit, CompareTarget, SweepCounts, SweepProblem, SweepUnit } from '../review/sweep-types.js';
import { Answers, keyedAsk } from './asking/answers.js';
import { armedBreaker, releaseHeld, settleUnit, type BreakerState } from '../review/breaker.js';
import { DEFAULT_MAX_OUTPUT_BYTES } from '../review/output-bounds.js';
import { emptyCounts } from '../review/sweep-types.js';
import { namedPaths, type Stop, type StopOf } from '../runs/stop.js';
import { batchProgressQuery, batchResumeUpdate, type BatchProgress } from './messages.js';
import { launchOnce } from './asking/ask.js';
import { checked, findingMessages, gather } from './asking/checked.js';
import { Lifecycle } from './lifecycle.js';
import { lowered, paceLaunch, paceLimit, startPace, type Pace } from './asking/pace.js';
import type { SpendTotals } from '../runs/spend.js';
import type { Spend } from './spend-cap.js';
import { recordBatchRequestsPending, recordPairsReviewed } from '../observability/metrics.js';
import { askProviderBatch, type BatchedUnit, type ProviderBatchProgress } from './asking/provider-batch.js';

const { captureUnit, acceptUnit, sweepGuardBaseline, sweepGuardCheck } = proxyActivities<Activities>({ startToCloseTimeout: '2m', heartbeatTimeout: '30s', retry: { maximumAttempts: 5 } });
const { loadBatch } = proxyActivities<Activities>({ startToCloseTimeout: '1m', heartbeatTimeout: '30s', retry: { maximumAttempts: 5 } });

export interface GateBatchInput {
  runId: string;
  checkout: string;
  batch: number;
  profile: Profile;
  /** The profiles per-criterion routing chose for some units (`unit.profile`); absent when every unit uses `profile`. */
  profiles?: Record<string, Profile>;
  concurrency: number;
  /** The units left to do; absent on the first run of a batch (they are read from the run directory). */
  units?: SweepUnit[];
  counts?: SweepCounts;
  problems?: SweepProblem[];
  /** Events past which the batch finishes its launches in flight and continues as new (default 8,000). */
  historyBudget?: number;
  /** The sweep's `--max-cost` cap, and what the sweep spent before this batch: the batch's launches decide against both. */
  maxCostUsd?: number;
  spentBefore?: SpendTotals;
  /** The sweep's concurrency as a rate-limit warning lowered it (absent: `concurrency`, not lowered yet). */
  pace?: Pace;
  /** The breaker as the batch's last run left it (absent: armed afresh, as every batch and resume begins). */
  breaker?: BreakerState<HeldUnit>;
  /** A compare run's route: accepted verdicts go to that run's directory instead of the KB's result files. */
  compare?: CompareTarget;
  /** Ask the units' first attempts as a provider batch (an API profile's `--batch` sweep: docs/batches.md); absent: each unit live. */
  providerBatch?: boolean;
}

/** A failed unit the breaker holds back from the problems: what to ask again, and its problems. */
export interface HeldUnit {
  pending: SweepUnit;
  problems: SweepProblem[];
}

export interface GateBatchResult {
  counts: SweepCounts;
  problems: SweepProblem[];
  /** Set when a launch stopped the batch; `remaining` then holds every unit not finished. */
  stop?: Stop;
  remaining: SweepUnit[];
  /** Set once a rate-limit warning lowered the concurrency: the sweep's later batches keep it. */
  pace?: Pace;
}

export { batchProgressQuery, batchResumeUpdate, type BatchProgress } from './messages.js';

/** The answer a unit's launch came to: the capture it was asked with and the launch's result. */
interface UnitAnswer {
  captured: CapturedUnit;
  result: LaunchResult;
}

/** A KB that changed while a launch ran: the paths and the launch, for the operator to acknowledge. */
function checkoutChanged(paths: string[], launchId: string): StopOf<'checkout-changed'> {
  return {
    kind: 'checkout-changed',
    disposition: 'inspect',
    reason: `the KB changed outside review state while launch ${launchId} ran: ${namedPaths(paths)}; its answer was not accepted — restore the paths, or own them, then acknowledge`,
    paths,
  };
}

/** The lowered pace, for the sweep and the batch's next run. */
function withPace(): { pace?: Pace } {
  const pace = lowered();
  return pace !== undefined ? { pace } : {};
}

/** A unit as the Web UI names it: its note and its gate, or its lens and how many gates. */
export function unitName(unit: SweepUnit): string {
  return `${unit.note} × ${unit.criteria.length === 1 ? unit.criteria[0]!.id : `${unit.lens} (${unit.criteria.length} gates)`}`;
}

/** Past this many events a batch finishes its launches in flight and continues as new. */
const historyBudget = 8000;

/** Asks one unit (checked: re-asked with the findings within the budget); a stop ends it early and says what is left. */
async function sweepUnit(
  input: GateBatchInput,
  unit: SweepUnit,
  counts: SweepCounts,
  /** The batch's answers by answer key. */
  answers: Answers<UnitAnswer>,
  /** The KB snapshot the batch began with. */
  guard: string,
  /** The sweep's spend: it counts the launches, tokens and cost, and refuses a launch past the cap. */
  spend: Spend,
  /** A compare run's route, where the accepted verdicts go (undefined: the KB's result files). */
  compare: CompareTarget | undefined,
  /** The unit's first attempt as a provider batch answered it: accepted through the same checks as a launch's. */
  batched?: UnitAnswer,
): Promise<{ stop?: Stop; pending: SweepUnit; launches?: number; failed?: { problems: SweepProblem[]; findings: Finding[]; accepted: number } }> {
  /** Each criterion's findings from its last refused try (a spent launch refuses every criterion it was asked). */
  const refusals = new Map<string, Finding[]>();
  // A unit per-criterion routing gave another profile launches under it; every other unit (and every unit of a batch
  // begun before routing) under the sweep's, so the commands of recorded histories are unchanged.
  const profile = (unit.profile !== undefined ? input.profiles?.[unit.profile] : undefined) ?? input.profile;
  const result = await checked<SweepUnit, AcceptedResult>(unit, profile.attempts, async ({ input: pending, attempt, findings }) => {
    const fromBatch = attempt === 1 ? batched : undefined;
    const captured = fromBatch?.captured ?? (await captureUnit.executeWithOptions({ summary: `capture ${unitName(pending)}, attempt ${attempt}` }, [{ runId: input.runId, checkout: input.checkout, unit: pending, attempt, findings }]));
    // The spend (whose totals are `counts`) adds the launch, its tokens and its cost.
    const ran = (launched: LaunchResult) => {
      counts.tries += launched.try;
      paceLaunch(launched);
    };
    const identity = { prompt: captured.prompt, inputs: Object.fromEntries(Object.entries(captured.hashes).flatMap(([id, hash]) => [[`note ${id}`, hash.note], [id, hash.criterion]])), outputs: captured.outputs, profile: profile.name };
    const accept = async (asked: CapturedUnit, launched: LaunchResult, keep: (answer: UnitAnswer) => void) => {
      // A launch that ran while the KB changed outside review state: its answer is not accepted.
      if (asked === captured) {
        const { changed } = await sweepGuardCheck.executeWithOptions({ summary: `compare the KB with the batch's snapshot before accepting ${unitName(pending)}` }, [{ checkout: input.checkout, runId: input.runId, baseline: guard }]);
        if (changed.length > 0) return { kind: 'stop' as const, stop: checkoutChanged(changed, launched.launchId) };
      }
      const check = await acceptUnit.executeWithOptions({ summary: `accept ${unitName(pending)}, attempt ${attempt}` }, [
        // The carried inputs stay out of the accept's input: it reads the checkout's own copies.
        { runId: input.runId, checkout: input.checkout, unit: pending, captured: { ...asked, files: undefined }, launch: launched, ...(profile.maxOutputBytes !== undefined && { maxOutputBytes: profile.maxOutputBytes }), ...(compare !== undefined && { compare }) },
      ]);
      keep({ captured: asked, result: launched });
      return { kind: 'accepted' as const, check };
    };
    // An ask whose key was answered in this batch is not launched: the recorded answer is checked again, and spends the attempt.
    const outcome = await keyedAsk(answers, identity, {
      answered: (earlier) => accept(earlier.captured, earlier.result, () => undefined),
      launch: (keep) =>
        fromBatch !== undefined
          ? acceptBatched(fromBatch.result, (launched) => accept(captured, launched, keep), ran, spend)
          : launchOnce(
          {
            launchId: `${input.runId}/${pending.key}/${attempt}`,
            profile,
            prompt: captured.prompt,
            outputs: captured.outputs,
            // A capture that carries its inputs launches on any worker, which returns the output; an older one launches in its directory on the checkout's host.
            ...(captured.files !== undefined && captured.launchDir !== undefined
              ? { dir: captured.launchDir, files: captured.files, returnOutputs: { maxBytes: profile.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES } }
              : { dir: captured.dir }),
          },
          `${unitName(pending)}, attempt ${attempt}`,
          (launched) => accept(captured, launched, keep),
          ran,
          spend,
        ),
    });
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
  if (result.status === 'stopped') return { stop: result.stop, pending: result.pending };
  if (result.status === 'exhausted') {
    const failed = result.pending.criteria.map((criterion): SweepProblem => {
      const findings = refusals.get(criterion.id) ?? [];
      const why = findingMessages(findings) || 'no accepted output';
      return { note: unit.note, criterion: criterion.id, reason: `attempt budget (${profile.attempts}) spent: ${why}`.slice(0, 500), ...(findings.length > 0 && { findings }) };
    });
    // The caller records the problems (or the breaker holds them back); `pending` is what a tripped breaker asks again.
    return { pending: result.pending, launches: result.attempts, failed: { problems: failed, findings: result.pending.criteria.flatMap((criterion) => refusals.get(criterion.id) ?? []), accepted: result.accepted.length } };
  }
  return { pending: { ...unit, criteria: [] }, launches: result.attempts };
}

/** A provider batch's answer as a launch that ran: counted in the spend, then checked as any launch's output. */
async function acceptBatched<A>(result: LaunchResult, check: (result: LaunchResult) => Promise<A>, ran: (result: LaunchResult) => void, spend: Spend): Promise<A> {
  spend.add(result);
  ran(result);
  return check(result);
}

/** What a provider batch came to: the answers by unit key, and the units it hands back with its stop. */
interface BatchedOutcome {
  answers: Map<string, UnitAnswer>;
  /** Units whose requests expired twice (asked live on the resume), or were not answered when the provider was unreachable. */
  expired: SweepUnit[];
  /** Units not submitted: the cap had no room for them (asked on the resume, under the raised cap). */
  deferred: SweepUnit[];
  stop?: StopOf<'launch-failed'> | StopOf<'spend-limit'>;
}

/**
 * The units' first attempts as a provider batch: each captured, submitted, waited for and collected;
 * a request that expired is resubmitted once. What it answered is accepted in the gather like a
 * launch's answer; an errored request's unit is asked live (the relaunch rule); a request that
 * expired twice is a `launch-failed` stop for its unit. Under `--max-cost`, only the units the cap
 * has room for (at the mean launch so far) are submitted; the rest are a `spend-limit` stop.
 */
async function batchedUnits(input: GateBatchInput, all: SweepUnit[], spend: Spend, report: (progress: ProviderBatchProgress) => void): Promise<BatchedOutcome> {
  // A sweep already at its `--max-cost` cap submits nothing: its units reach the cap's stop in the gather, as live ones do.
  if (spend.over() !== undefined) return { answers: new Map(), expired: [], deferred: [] };
  const fit = spend.fit(all.length);
  const capped = fit.stop !== undefined ? fit : undefined;
  const units = capped ? all.slice(0, capped.fits) : all;
  const deferred = capped ? all.slice(capped.fits) : [];
  const capStop = capped?.stop;
  // Past `over()` the cap has room for one at least; this guards the float arithmetic from submitting an empty batch.
  if (units.length === 0) return { answers: new Map(), expired: [], deferred, ...(capStop && { stop: capStop }) };
  const captures: BatchedUnit[] = await Promise.all(
    units.map(async (unit) => ({ unit, captured: await captureUnit.executeWithOptions({ summary: `capture ${unitName(unit)} for the provider batch` }, [{ runId: input.runId, checkout: input.checkout, unit, attempt: 1, findings: [] }]) })),
  );
  const answers = new Map<string, UnitAnswer>();
  const context = { runId: input.runId, checkout: input.checkout, profile: input.profile, report };
  let todo = captures;
  let batches: string[] = [];
  const runDir = captures[0]?.captured.dir.split('/launches/')[0];
  const evidence = runDir !== undefined ? { evidence: `${runDir}/provider-batches.json` } : {};
  for (const round of [1, 2]) {
    let asked: Awaited<ReturnType<typeof askProviderBatch>>;
    try {
      asked = await askProviderBatch(context, todo, round);
    } catch (error) {
      // The provider unreachable through every retry (or a submission that cannot be told apart): the units not answered stop; the ledger keeps what was submitted.
      if (!(error instanceof ActivityFailure) || isCancellation(error)) throw error;
      const expired = todo.map(({ unit }) => unit);
      return { answers, expired, deferred, stop: { kind: 'launch-failed', disposition: 'inspect', reason: `provider batch of ${expired.length} units: ${error.cause?.message ?? error.message}`.slice(0, 500), ...evidence } };
    }
    batches = asked.batches;
    for (const { unit, captured } of todo) {
      const result = asked.answered.get(unit.key);
      if (result !== undefined) answers.set(unit.key, { captured, result });
    }
    const expired = new Set(asked.expired);
    todo = todo.filter(({ unit }) => expired.has(unit.key));
    if (todo.length === 0) return { answers, expired: [], deferred, ...(capStop && { stop: capStop }) };
  }
  // An expired request is not billed: a resume asks these units live rather than in a third batch.
  const expired = todo.map(({ unit }): SweepUnit => ({ ...unit, live: true }));
  return {
    answers,
    expired,
    deferred,
    stop: {
      kind: 'launch-failed',
      disposition: 'inspect',
      reason: `${expired.length} request${expired.length === 1 ? '' : 's'} of provider batch ${batches.join(', ')} expired again after one resubmission (a resume asks ${expired.length === 1 ? 'it' : 'them'} live): ${expired.slice(0, 3).map(unitName).join('; ')}${expired.length > 3 ? '; …' : ''}`,
      ...evidence,
    },
  };
}

/** One batch of a gate sweep: its units gathered with bounded concurrency, each output checked, results written by code. */
export async function gateBatch(input: GateBatchInput): Promise<GateBatchResult> {
  const tally = { started: 0, finished: 0, units: input.units?.length ?? 0 };
  const counts = input.counts ?? emptyCounts();
  let providerProgress: ProviderBatchProgress | undefined;
  const lifecycle = new Lifecycle<BatchProgress>({
    runId: `${input.runId} batch ${input.batch + 1}`,
    headline: (stage) => stage,
    next: { resume: `commonplace review run gates --resume ${input.runId}`, ended: `commonplace review retry ${input.runId}` },
    inspect: `temporal workflow query --workflow-id ${workflowInfo().workflowId} --type batchProgress`,
    autoResume: false,
    progress: { query: batchProgressQuery, build: (common) => ({ ...common, batch: input.batch, counts, left: tally.units - tally.started, inFlight: tally.started - tally.finished, ...(providerProgress !== undefined && { provider: providerProgress }) }) },
    resume: batchResumeUpdate,
    ...(input.maxCostUsd !== undefined && { maxCostUsd: input.maxCostUsd }),
    spent: { totals: counts, ...(input.spentBefore !== undefined && { before: input.spentBefore }) },
  });
  return lifecycle.close(
    async () => {
      startPace(input.concurrency, input.pace);
      // One batch's answers: a unit's keys name its note and criteria, so units never share one.
      const answers = new Answers<UnitAnswer>();
      const guard = await sweepGuardBaseline.executeWithOptions({ summary: `snapshot the KB for batch ${input.batch + 1}` }, [{ checkout: input.checkout, runId: input.runId, name: `batch-${input.batch + 1}-${workflowInfo().runId}` }]);
      const compare = input.compare;
      const units = input.units ?? (await loadBatch.executeWithOptions({ summary: `load the units of batch ${input.batch + 1}` }, [{ runId: input.runId, checkout: input.checkout, batch: input.batch }]));
      tally.units = units.length;
      // An API profile's batch asks its units' first attempts as one provider batch, then accepts them in the gather;
      // units per-criterion routing gave another profile are asked live under it, as are units whose requests expired twice.
      const batchable = units.filter((unit) => unit.profile === undefined && unit.live !== true);
      const provider = input.providerBatch === true && batchable.length > 0 ? await batchedUnits(input, batchable, lifecycle.spend, (progress) => {
        providerProgress = progress;
        const c = progress.counts;
        lifecycle.at(`batch ${input.batch + 1}: provider batch ${progress.batches.join(', ')} (round ${progress.round}): ${c.submitted} submitted, ${c.processing} processing, ${c.succeeded} succeeded, ${c.errored} errored, ${c.expired + c.canceled} expired`);
        recordBatchRequestsPending(metricMeter, input.profile.harness, input.profile.name, c.processing);
      }) : undefined;
      if (provider !== undefined) recordBatchRequestsPending(metricMeter, input.profile.harness, input.profile.name, 0);
      const problems = input.problems ?? [];
      const record = (failed: readonly SweepProblem[]) => {
        problems.push(...failed);
        counts.problems += failed.length;
        counts.pairsDone += failed.length;
      };
      // The breaker judges the batch's first settled units.
      let breaker = input.breaker ?? armedBreaker<HeldUnit>();
      const stopped = new Map<string, SweepUnit>();
      let stop: Stop | undefined;
      const overBudget = () => workflowInfo().historyLength > (input.historyBudget ?? historyBudget) || workflowInfo().continueAsNewSuggested;
      // Units the provider batch hands back with its stop are not asked here.
      const handedBack = new Set([...(provider?.expired ?? []), ...(provider?.deferred ?? [])].map((unit) => unit.key));
      const asked = handedBack.size > 0 ? units.filter((unit) => !handedBack.has(unit.key)) : units;
      const done = await gather(
        asked,
        paceLimit,
        async (unit) => {
          tally.started += 1;
          const unitDone = await sweepUnit(input, unit, counts, answers, guard, lifecycle.spend, compare, provider?.answers.get(unit.key));
          tally.finished += 1;
          if (unitDone.stop) {
            stop ??= unitDone.stop;
            stopped.set(unit.key, unitDone.pending); // only the criteria not yet accepted are asked again
          } else {
            // A unit with any accepted criterion (part of a bundle) shows the harness answers in form: it counts as accepted, its refused criteria are problems.
            const { failed } = unitDone;
            const step = settleUnit(breaker, failed && failed.accepted === 0 ? { outcome: 'failed', name: unitName(unit), launches: unitDone.launches ?? 0, findings: failed.findings, item: { pending: unitDone.pending, problems: failed.problems } } : { outcome: 'accepted' });
            if (failed && failed.accepted > 0) record(failed.problems);
            breaker = step.state;
            for (const held of step.record) record(held.problems);
            stop ??= step.stop;
          }
          lifecycle.at(`batch ${input.batch + 1}: ${counts.pairsDone} pairs done here, ${counts.problems} problems, ${units.length - tally.started} units queued`);
          return true;
        },
        () => !stop && !overBudget(),
      );
      const remaining = [...stopped.values(), ...asked.filter((_, index) => done[index] === undefined)];
      if (provider?.stop) {
        // Requests that expired twice, or units the cap left out, stop the batch for those units, after every other unit was accepted.
        stop ??= provider.stop;
        remaining.push(...provider.expired, ...provider.deferred);
      }
      if (stop || remaining.length === 0) {
        // A tripped breaker hands its failed units back, to be asked again after the fix; otherwise they are problems.
        if (breaker.status === 'tripped') remaining.unshift(...breaker.held.map((held) => held.pending));
        const step = releaseHeld(breaker);
        breaker = step.state;
        for (const held of step.record) record(held.problems);
      }
      if (stop) {
        // The batch's part ends here; the sweep holds the stop and asks the remaining units in a new batch.
        lifecycle.complete('completed', `handed the sweep a ${(stop as Stop).kind} stop, ${remaining.length} units left`);
        return { counts, problems, stop, remaining, ...withPace() };
      }
      if (remaining.length > 0) {
        await continueAsNew<typeof gateBatch>({ ...input, units: remaining, counts, problems, ...withPace(), breaker });
      }
      lifecycle.complete('completed', `batch ${input.batch + 1}: ${counts.pairsDone} pairs done here, ${counts.problems} problems`);
      return { counts, problems, remaining: [], ...withPace() };
    },
    (stop) => Promise.resolve({ counts, problems: input.problems ?? [], stop, remaining: [] }),
  );
}
