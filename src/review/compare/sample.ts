/** A reproducible sample, stratified by criterion and weighted towards recorded warn and fail results so rare verdicts are in it. PURE MODULE. */
import type { CompareSample, SamplePair, Verdict } from './types.js';
import { seededRandom } from './stats.js';

export interface SampleCandidate {
  note: string;
  criterion: string;
  kind: string;
  /** Report criteria (`Result: report`) are never compared. */
  report: boolean;
  /** In the pair's result file, fresh or not. */
  recorded?: Verdict | 'report';
}

export interface SampleOptions {
  seed: number;
  size: number;
  perCriterionMin: number;
  /** For the record: the caller has already limited the candidates by them. */
  criteria?: string[];
  notes?: string[];
}

/** How much likelier a pair is drawn: its own recorded warn or fail, and its criterion having any. */
const RECORDED_WEIGHT = 4;
const CRITERION_WEIGHT = 2;

const rare = (candidate: SampleCandidate) => candidate.recorded === 'warn' || candidate.recorded === 'fail';
const byPair = (a: { note: string; criterion: string }, b: { note: string; criterion: string }) =>
  a.note < b.note ? -1 : a.note > b.note ? 1 : a.criterion < b.criterion ? -1 : a.criterion > b.criterion ? 1 : 0;

/** Efraimidis–Spirakis keys (`u^(1/w)`): each criterion's `perCriterionMin` best first, round by round, then the best keys overall. */
export function drawSample(candidates: readonly SampleCandidate[], options: SampleOptions): CompareSample {
  const random = seededRandom(options.seed);
  const eligible = candidates.filter((candidate) => !candidate.report).sort(byPair);
  const rareCriteria = new Set(eligible.filter(rare).map((candidate) => candidate.criterion));
  const keyed = eligible.map((candidate) => {
    const weight = rare(candidate) ? RECORDED_WEIGHT : rareCriteria.has(candidate.criterion) ? CRITERION_WEIGHT : 1;
    return { candidate, key: Math.pow(random(), 1 / weight) };
  });
  const byCriterion = new Map<string, typeof keyed>();
  for (const entry of keyed) byCriterion.set(entry.candidate.criterion, [...(byCriterion.get(entry.candidate.criterion) ?? []), entry]);
  for (const entries of byCriterion.values()) entries.sort((a, b) => b.key - a.key);
  // Criteria with recorded warn or fail results take their minimum first, so a small size still holds them.
  const criteria = [...byCriterion.keys()].sort((a, b) => Number(rareCriteria.has(b)) - Number(rareCriteria.has(a)) || (a < b ? -1 : a > b ? 1 : 0));
  const size = Math.min(options.size, eligible.length);
  const taken = new Set<(typeof keyed)[number]>();
  for (let round = 0; round < options.perCriterionMin && taken.size < size; round++) {
    for (const criterion of criteria) {
      const entry = byCriterion.get(criterion)![round];
      if (entry !== undefined && taken.size < size) taken.add(entry);
    }
  }
  for (const entry of [...keyed].sort((a, b) => b.key - a.key)) {
    if (taken.size >= size) break;
    taken.add(entry);
  }
  const pairs: SamplePair[] = [...taken].map(({ candidate }) => ({ note: candidate.note, criterion: candidate.criterion, kind: candidate.kind })).sort(byPair);
  return {
    seed: options.seed,
    size: pairs.length,
    perCriterionMin: options.perCriterionMin,
    ...(options.criteria !== undefined && options.criteria.length > 0 && { criteria: options.criteria }),
    ...(options.notes !== undefined && options.notes.length > 0 && { notes: options.notes }),
    pairs,
  };
}
