/** A compare run's end: its report written from the run directory, and its summary beside it. */
import { join } from 'node:path';
import { writeFileAtomic } from '../../../fs/atomic.js';
import type { CompareProgress, CompareSummary } from '../../../review/compare/run-types.js';
import type { Agreement, CompareReport } from '../../../review/compare/types.js';
import { compareDirOf } from './run-dir.js';
import { writeCompareReport } from './report-files.js';

const percent = (share: number) => `${Math.round(share * 100)} %`;

/** One overall line of a report: a route against a reference. */
export function agreementLine(agreement: Agreement): string {
  const kappa = agreement.kappa === null ? 'κ undefined' : `κ ${agreement.kappa.toFixed(2)}${agreement.kappaInterval ? ` [${agreement.kappaInterval[0].toFixed(2)}, ${agreement.kappaInterval[1].toFixed(2)}]` : ''}`;
  return `${agreement.route} against ${agreement.reference}: n ${agreement.n}, agreement ${percent(agreement.raw)}, ${kappa}, ${agreement.flips.length} pass↔fail flips`;
}

/** The report's overall lines, then each route's cost per pair. */
export function reportLines(report: CompareReport): string[] {
  const costs = report.costs.map((cost) => `${cost.route}: ${cost.pairs} verdicts, ${cost.costUsdPerPair === null ? 'cost unknown' : `$${cost.costUsdPerPair.toFixed(4)}`} per pair, ${Math.round(cost.tokensPerPair.input + cost.tokensPerPair.output)} tokens per pair`);
  return [...report.overall.map(agreementLine), ...costs];
}

/** Writes the report (json, md, html) and the summary of a compare run; returns the summary. */
export async function finishCompare(input: { checkout: string; runId: string; progress: CompareProgress }): Promise<CompareSummary> {
  const runDir = compareDirOf(input.checkout, input.runId);
  const report = await writeCompareReport(input.checkout, input.runId);
  const summary: CompareSummary = {
    ...input.progress,
    runDir,
    report: { json: join(runDir, 'report.json'), md: join(runDir, 'report.md'), html: join(runDir, 'report.html') },
    overall: reportLines(report),
  };
  await writeFileAtomic(join(runDir, 'summary.json'), `${JSON.stringify(summary, null, 2)}\n`);
  return summary;
}
