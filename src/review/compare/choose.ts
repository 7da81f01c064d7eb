/** `calibrated-routes`: the cheapest candidate whose κ reaches the threshold in a fresh calibration record, else the profile's own route. PURE MODULE. */
import type { CalibratedRoutes } from '../../harness/profiles.js';
import type { Grouping } from '../sweep-types.js';
import { parseRoute, type KeptCalibrationRecord } from './types.js';

export type RecordState =
  | { state: 'absent' }
  | { state: 'invalid'; file: string; problems: string[] }
  | { state: 'read'; file: string; record: KeptCalibrationRecord; stale: string[] };

export interface ChoiceInput {
  criterion: string;
  /** The sweep's profile: the fallback route. */
  profile: string;
  grouping: Grouping;
  batch: boolean;
  routing: CalibratedRoutes;
  record: RecordState;
}

export interface RouteChoice {
  criterion: string;
  profile: string;
  route: string;
  basis: 'record' | 'default';
  why: string;
}

const figure = (value: number | null): string => (value === null ? 'undefined' : value.toFixed(2));
const price = (value: number | null): string => (value === null ? 'no price' : `$${value.toFixed(4)} per pair`);

export function chooseRoute(input: ChoiceInput): RouteChoice {
  const own = `${input.profile}:${input.grouping}${input.batch ? ':batch' : ''}`;
  const fallback = (why: string): RouteChoice => ({ criterion: input.criterion, profile: input.profile, route: own, basis: 'default', why });
  const { record: found, routing } = input;
  if (found.state === 'absent') return fallback('no calibration record for this criterion');
  if (found.state === 'invalid') return fallback(`calibration record ${found.file} is invalid (${found.problems.join('; ')}); not a basis`);
  const { record } = found;
  if (found.stale.length > 0) return fallback(`calibration record of run ${record.runId} is stale and refused as a basis: ${found.stale.join('; ')}`);
  if (record.reference !== routing.reference)
    return fallback(`calibration record of run ${record.runId} measures against ${record.reference}, the profile asks for ${routing.reference}`);

  const passing: { route: string; profile: string; kappa: number; n: number; cost: number | null; order: number }[] = [];
  const refused: string[] = [];
  routing.candidates.forEach((candidate, order) => {
    const route = parseRoute(candidate);
    if (typeof route === 'string') return void refused.push(route);
    const measured = record.routes.find((r) => r.route === route.name);
    if (!measured) return void refused.push(`${route.name} not in the record`);
    if (route.grouping !== input.grouping || route.batch !== input.batch)
      return void refused.push(
        `${route.name} was measured as ${route.grouping}${route.batch ? ' batched' : ''}, this sweep asks ${input.grouping}${input.batch ? ' batched' : ''}`,
      );
    if (measured.kappa === null || measured.kappa < routing.minKappa)
      return void refused.push(`${route.name} κ ${figure(measured.kappa)} < ${routing.minKappa}`);
    passing.push({ route: route.name, profile: route.profile, kappa: measured.kappa, n: measured.n, cost: measured.costUsdPerPair, order });
  });
  if (passing.length === 0)
    return fallback(`no candidate reaches κ ${routing.minKappa} against ${routing.reference} in run ${record.runId}: ${refused.join('; ')}`);
  // Priced routes first, cheapest first; an unpriced route only when none is priced; ties by the profile's order.
  passing.sort((a, b) => (a.cost === null ? 1 : 0) - (b.cost === null ? 1 : 0) || (a.cost ?? 0) - (b.cost ?? 0) || a.order - b.order);
  const best = passing[0] as (typeof passing)[number];
  const others = passing.length > 1 ? `, cheapest of ${passing.length} passing` : '';
  return {
    criterion: input.criterion,
    profile: best.profile,
    route: best.route,
    basis: 'record',
    why: `κ ${figure(best.kappa)} ≥ ${routing.minKappa} against ${routing.reference} on ${best.n} pairs in run ${record.runId}, ${price(best.cost)}${others}`,
  };
}
