/** Every route against the reference, and (the reference too) against the operator's labels, per criterion and overall. PURE MODULE. */
import { emptyTokens, type TokenTotals } from '../../runs/spend.js';
import { bootstrapKappaInterval, cohensKappa, confusionMatrix, rawAgreement, stringSeed, type VerdictPair } from './stats.js';
import { LABELS_ROUTE, type Agreement, type CompareReport, type CompareSample, type Label, type RouteCost, type RouteVerdict, type Verdict } from './types.js';

export interface ReportInput {
  runId: string;
  sample: CompareSample;
  routes: string[];
  /** Absent: the first route. */
  reference?: string;
  verdicts: RouteVerdict[];
  labels: Label[];
  /** Per bootstrap interval (default 1,000). */
  resamples?: number;
}

interface Said {
  verdict: Verdict;
  reasons: string[];
}

const pairKey = (note: string, criterion: string): string => `${note}\u0000${criterion}`;

/** A later line for the same pair wins: a resumed run's last answer. */
function verdictsByRoute(verdicts: readonly RouteVerdict[]): Map<string, Map<string, Said>> {
  const byRoute = new Map<string, Map<string, Said>>();
  for (const verdict of verdicts) {
    const said = byRoute.get(verdict.route) ?? new Map<string, Said>();
    said.set(pairKey(verdict.note, verdict.criterion), { verdict: verdict.verdict, reasons: verdict.reasons });
    byRoute.set(verdict.route, said);
  }
  return byRoute;
}

/** The last label of a pair wins: relabelling appends. */
function labelsByPair(labels: readonly Label[]): Map<string, Said> {
  const byPair = new Map<string, Said>();
  for (const label of labels)
    byPair.set(pairKey(label.note, label.criterion), { verdict: label.verdict, reasons: [`labelled ${label.verdict} by ${label.by} at ${label.at}`] });
  return byPair;
}

/** Only pairs both sides answered count. */
function agreement(
  route: string,
  reference: string,
  pairs: readonly { note: string; criterion: string }[],
  routeSaid: Map<string, Said>,
  referenceSaid: Map<string, Said>,
  seed: number,
  resamples?: number,
): Agreement {
  const both: (VerdictPair & { note: string; criterion: string; referenceReasons: string[]; routeReasons: string[] })[] = [];
  for (const pair of pairs) {
    const key = pairKey(pair.note, pair.criterion);
    const ours = routeSaid.get(key);
    const theirs = referenceSaid.get(key);
    if (ours && theirs)
      both.push({
        note: pair.note,
        criterion: pair.criterion,
        reference: theirs.verdict,
        route: ours.verdict,
        referenceReasons: theirs.reasons,
        routeReasons: ours.reasons,
      });
  }
  const matrix = confusionMatrix(both);
  const flips = both.filter((pair) => (pair.reference === 'pass' && pair.route === 'fail') || (pair.reference === 'fail' && pair.route === 'pass'));
  return {
    route,
    reference,
    n: both.length,
    raw: rawAgreement(matrix) ?? 0,
    kappa: cohensKappa(matrix),
    kappaInterval: bootstrapKappaInterval(both, { seed: stringSeed(`${route}\u0000${reference}`, seed), resamples }),
    matrix,
    flips,
  };
}

/** Dollars null when any verdict has no price. */
function routeCost(route: string, verdicts: readonly RouteVerdict[], inSample: Set<string>): RouteCost {
  const answered = new Map<string, RouteVerdict>();
  for (const verdict of verdicts)
    if (verdict.route === route && inSample.has(pairKey(verdict.note, verdict.criterion))) answered.set(pairKey(verdict.note, verdict.criterion), verdict);
  const all = [...answered.values()];
  const pairs = all.length;
  const tokens: TokenTotals = emptyTokens();
  for (const verdict of all) {
    tokens.input += verdict.tokens.input;
    tokens.output += verdict.tokens.output;
    tokens.cacheRead += verdict.tokens.cacheRead;
    tokens.cacheWrite += verdict.tokens.cacheWrite;
  }
  const priced = pairs > 0 && all.every((verdict) => verdict.costUsd !== null);
  const per = (value: number): number => (pairs === 0 ? 0 : value / pairs);
  return {
    route,
    pairs,
    costUsdPerPair: priced ? per(all.reduce((sum, verdict) => sum + (verdict.costUsd ?? 0), 0)) : null,
    tokensPerPair: { input: per(tokens.input), output: per(tokens.output), cacheRead: per(tokens.cacheRead), cacheWrite: per(tokens.cacheWrite) },
  };
}

export function buildReport(input: ReportInput): CompareReport {
  const reference = input.reference ?? input.routes[0] ?? '';
  const byRoute = verdictsByRoute(input.verdicts);
  const labels = labelsByPair(input.labels);
  const none = new Map<string, Said>();
  const pairs = input.sample.pairs;
  const inSample = new Set(pairs.map((pair) => pairKey(pair.note, pair.criterion)));

  const agreements = (over: readonly { note: string; criterion: string }[], scope: string): Agreement[] => {
    const list: Agreement[] = [];
    const seed = stringSeed(scope, input.sample.seed);
    for (const route of input.routes) {
      if (route !== reference) list.push(agreement(route, reference, over, byRoute.get(route) ?? none, byRoute.get(reference) ?? none, seed, input.resamples));
    }
    if (labels.size > 0)
      for (const route of input.routes) list.push(agreement(route, LABELS_ROUTE, over, byRoute.get(route) ?? none, labels, seed, input.resamples));
    return list;
  };

  const criteria: CompareReport['criteria'] = [];
  const seen = new Set<string>();
  for (const pair of pairs) {
    if (seen.has(pair.criterion)) continue;
    seen.add(pair.criterion);
    criteria.push({
      criterion: pair.criterion,
      kind: pair.kind,
      agreements: agreements(
        pairs.filter((other) => other.criterion === pair.criterion),
        pair.criterion,
      ),
    });
  }
  criteria.sort((a, b) => a.criterion.localeCompare(b.criterion));

  return {
    runId: input.runId,
    routes: [...input.routes],
    reference,
    sample: { seed: input.sample.seed, size: input.sample.size },
    overall: agreements(pairs, ''),
    criteria,
    costs: input.routes.map((route) => routeCost(route, input.verdicts, inSample)),
  };
}
