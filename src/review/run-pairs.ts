/**
 * The pairs a run asks, chosen in one place for the client (its check and its `--estimate`) and the
 * worker (the run's prepare): a sweep's stale and missing pairs, a compare run's sample.
 */
import { drawSample } from './compare/sample.js';
import type { CompareInput } from './compare/run-types.js';
import type { CompareSample } from './compare/types.js';
import { CRITERION_SELECTIONS } from './criteria.js';
import { gatePatterns, selectMatching } from './reviewable.js';
import { selectPairs, type PairStatus } from './status.js';
import type { SweepInput } from './sweep-types.js';

type PairKey = { note: string; criterion: string };
const keyOf = (pair: PairKey) => `${pair.note}\0${pair.criterion}`;

/** A sweep's pairs: how many its selection holds, and those it asks — every one not fresh, of a retry only its origin's problem pairs. */
export async function sweepPairs(
  input: Pick<SweepInput, 'checkout' | 'notes' | 'gates' | 'criteria'>,
  problems?: readonly PairKey[],
): Promise<{ selected: number; asked: PairStatus[] }> {
  const selected = await selectPairs(input.checkout, { notes: input.notes, gates: input.gates, criteria: input.criteria });
  const wanted = problems && new Set(problems.map(keyOf));
  return { selected: selected.length, asked: selected.filter((pair) => pair.status !== 'fresh' && (wanted?.has(keyOf(pair)) ?? true)) };
}

/**
 * A compare run's sample, drawn from the selected notes' pairs whose criterion matches the globs (or
 * the one drawn before, when given), and the KB's pairs it holds, in its order.
 */
export async function comparePairs(input: Omit<CompareInput, 'runId'>, drawn?: CompareSample): Promise<{ sample: CompareSample; pairs: PairStatus[] }> {
  const candidates = selectMatching(
    await selectPairs(input.checkout, { notes: input.notes, criteria: CRITERION_SELECTIONS }),
    gatePatterns(input.criteria),
    (pair) => pair.criterion,
    'criterion of the selected notes',
    "name a gate ID (`prose/*`, a lens) or a type spec's or COLLECTION.md's KB path",
  );
  const sample =
    drawn ??
    drawSample(
      candidates.map((pair) => ({
        note: pair.note,
        criterion: pair.criterion,
        kind: pair.kind === 'gate' ? `gate:${pair.lens ?? ''}` : pair.kind,
        report: pair.reportCriterion,
        ...(pair.result && { recorded: pair.result.outcome }),
      })),
      input,
    );
  const byKey = new Map(candidates.map((pair) => [keyOf(pair), pair]));
  return { sample, pairs: sample.pairs.flatMap((pair) => byKey.get(keyOf(pair)) ?? []) };
}
