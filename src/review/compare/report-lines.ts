/** A report's overall figures as a run's summary and `review inspect` print them. PURE MODULE. */
import { readAgreement } from './stats.js';
import type { Agreement, CompareReport } from './types.js';

const percent = (share: number) => `${Math.round(share * 100)} %`;

export function agreementLine(agreement: Agreement): string {
  const interval = agreement.kappaInterval ? ` [${agreement.kappaInterval[0].toFixed(2)}, ${agreement.kappaInterval[1].toFixed(2)}]` : '';
  const reading = readAgreement(agreement);
  const kappa =
    reading.kind === 'no-pairs'
      ? 'no pairs'
      : reading.kind === 'all-agree'
        ? `every pair ${reading.verdict} on both sides (κ not defined)`
        : `κ ${(agreement.kappa ?? 0).toFixed(2)}${interval}${reading.kind === 'too-few' ? ' (too few pairs for a band)' : ''}`;
  return `${agreement.route} against ${agreement.reference}: n ${agreement.n}, agreement ${percent(agreement.raw)}, ${kappa}, ${agreement.flips.length} pass↔fail flip${agreement.flips.length === 1 ? '' : 's'}`;
}

export function reportLines(report: CompareReport): string[] {
  const costs = report.costs.map(
    (cost) =>
      `${cost.route}: ${cost.pairs} verdicts, ${cost.costUsdPerPair === null ? 'cost unknown' : `$${cost.costUsdPerPair.toFixed(4)}`} per pair, ${Math.round(cost.tokensPerPair.input + cost.tokensPerPair.output)} tokens per pair`,
  );
  return [...report.overall.map(agreementLine), ...costs];
}
