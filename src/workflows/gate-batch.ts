import { continueAsNew, defineQuery, proxyActivities, setCurrentDetails, setHandler, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { Profile } from '../harness/profiles.js';
import type { AcceptedResult, SweepCounts, SweepProblem, SweepUnit } from '../review/sweep-types.js';
import { emptyCounts } from '../review/sweep-types.js';
import { ask } from './helpers/ask.js';
import { checked, gather } from './helpers/checked.js';
import { stopFor, type Stop } from './helpers/stops.js';

const { captureUnit, acceptUnit } = proxyActivities<Activities>({ startToCloseTimeout: '2m', retry: { maximumAttempts: 5 } });
const { loadBatch } = proxyActivities<Activities>({ startToCloseTimeout: '1m', retry: { maximumAttempts: 5 } });

export interface GateBatchInput {
  runId: string;
  checkout: string;
  batch: number;
  profile: Profile;
  concurrency: number;
  /** The units left to do; absent on the first run of a batch (they are read from the run directory). */
  units?: SweepUnit[];
  counts?: SweepCounts;
  problems?: SweepProblem[];
}

export interface GateBatchResult {
  counts: SweepCounts;
  problems: SweepProblem[];
  /** Set when a launch stopped the batch; `remaining` then holds every unit not finished. */
  stop?: Stop;
  remaining: SweepUnit[];
}

export const batchProgressQuery = defineQuery<{ batch: number; counts: SweepCounts; left: number; inFlight: number }>('batchProgress');

/** Past this many events a batch finishes its launches in flight and continues as new. */
const historyBudget = 8000;

/** Asks one unit (checked: re-asked with the findings within the budget); a stop ends it early and says what is left. */
async function sweepUnit(
  input: GateBatchInput,
  unit: SweepUnit,
  counts: SweepCounts,
  problems: SweepProblem[],
): Promise<{ stop?: Stop; pending: SweepUnit }> {
  const result = await checked<SweepUnit, AcceptedResult>(unit, input.profile.attempts, async ({ input: pending, attempt, findings }) => {
    const captured = await captureUnit({ runId: input.runId, checkout: input.checkout, unit: pending, attempt, findings });
    const outcome = await ask(
      { launchId: `${input.runId}/${pending.key}/${attempt}`, profile: input.profile, dir: captured.dir, prompt: captured.prompt, outputs: captured.outputs },
      `${pending.note} × ${pending.criteria.length === 1 ? pending.criteria[0]!.id : `${pending.lens} (${pending.criteria.length} gates)`}, attempt ${attempt}`,
    );
    if (outcome.status === 'usage-limit' || outcome.status === 'launch-failed') return { kind: 'stop', stop: stopFor(outcome)! };
    counts.launches += 1;
    counts.tries += outcome.result.try;
    counts.costUsd += outcome.result.costUsd ?? 0;
    if (outcome.status !== 'completed') {
      // Timed out or incomplete: the attempt is spent, and the next one is told why.
      return { kind: 'spent', findings: [outcome.status === 'timed-out' ? 'the last launch timed out' : `the last launch did not write ${outcome.result.missing.join(', ')}`] };
    }
    const accepted = await acceptUnit({ runId: input.runId, checkout: input.checkout, unit: pending, captured, launch: outcome.result });
    for (const written of accepted.written) counts.written[written.outcome] += 1;
    counts.staleOnArrival += accepted.staleOnArrival.length;
    counts.pairsDone += accepted.written.length + accepted.staleOnArrival.length;
    const again = new Set(accepted.rejected.map((rejected) => rejected.criterion));
    return {
      kind: 'checked',
      accepted: accepted.written,
      findings: accepted.rejected.flatMap((rejected) => rejected.findings.map((finding) => `${rejected.criterion}: ${finding}`)),
      next: { ...pending, criteria: pending.criteria.filter((criterion) => again.has(criterion.id)) },
    };
  });
  if (result.status === 'stopped') return { stop: result.stop, pending: result.pending };
  if (result.status === 'exhausted') {
    for (const criterion of result.pending.criteria) {
      const why = result.findings.filter((finding) => !finding.includes(': ') || finding.startsWith(`${criterion.id}: `)).join('; ') || 'no accepted output';
      problems.push({ note: unit.note, criterion: criterion.id, reason: `attempt budget (${input.profile.attempts}) spent: ${why}`.slice(0, 500) });
    }
    counts.problems += result.pending.criteria.length;
    counts.pairsDone += result.pending.criteria.length;
  }
  return { pending: { ...unit, criteria: [] } };
}

/** One batch of a gate sweep: its units gathered with bounded concurrency, each output checked, results written by code. */
export async function gateBatch(input: GateBatchInput): Promise<GateBatchResult> {
  const units = input.units ?? (await loadBatch({ runId: input.runId, checkout: input.checkout, batch: input.batch }));
  const counts = input.counts ?? emptyCounts();
  const problems = input.problems ?? [];
  const stopped = new Map<string, SweepUnit>();
  let stop: Stop | undefined;
  let started = 0;
  let finished = 0;
  setHandler(batchProgressQuery, () => ({ batch: input.batch, counts, left: units.length - started, inFlight: started - finished }));

  const overBudget = () => workflowInfo().historyLength > historyBudget || workflowInfo().continueAsNewSuggested;
  const done = await gather(
    units,
    input.concurrency,
    async (unit) => {
      started += 1;
      const unitDone = await sweepUnit(input, unit, counts, problems);
      finished += 1;
      if (unitDone.stop) {
        stop ??= unitDone.stop;
        stopped.set(unit.key, unitDone.pending); // only the criteria not yet accepted are asked again
      }
      setCurrentDetails(`batch ${input.batch + 1}: ${counts.pairsDone} pairs done here, ${counts.problems} problems, ${units.length - started} units queued`);
      return true;
    },
    () => !stop && !overBudget(),
  );
  const remaining = [...stopped.values(), ...units.filter((_, index) => done[index] === undefined)];
  if (stop) return { counts, problems, stop, remaining };
  if (remaining.length > 0) {
    await continueAsNew<typeof gateBatch>({ ...input, units: remaining, counts, problems });
  }
  return { counts, problems, remaining: [] };
}
