/** A compare run's report from its directory: report.json (`compare-report` v1), report.md and report.html, each atomically. */
import { writeFileAtomic } from '../../../fs/atomic.js';
import { buildReport } from '../../../review/compare/report.js';
import { renderHtml, renderMarkdown } from '../../../review/compare/render.js';
import { compareRunDir, readLabels, readReportOrder, readSample, readVerdicts, reportFile } from '../../../review/compare/run-files.js';
import { RESULTS_ROUTE, type CompareReport } from '../../../review/compare/types.js';

export interface ReportOrder {
  /** The routes in the order the run was asked for them. */
  routes: string[];
  /** The route the others are scored against (default the first). */
  reference?: string;
}

/** report.json's document: the shape and its version first, then the report. */
export const reportDocument = (report: CompareReport): Record<string, unknown> => ({ shape: 'compare-report', version: 1, ...report });

/** Reads the run directory and writes its report; routes and reference from `order`, else the earlier report.json, else the verdicts. */
export async function writeCompareReport(checkoutRoot: string, runId: string, order?: ReportOrder): Promise<CompareReport> {
  const runDir = compareRunDir(checkoutRoot, runId);
  const sample = await readSample(runDir);
  const verdicts = await readVerdicts(runDir);
  const labels = await readLabels(runDir);
  const known = order ?? (await readReportOrder(runDir));
  const routes = known?.routes ?? [...new Set(verdicts.map((verdict) => verdict.route))].sort();
  const reference = known?.reference ?? (routes.includes(RESULTS_ROUTE) ? RESULTS_ROUTE : routes[0]);
  const report = buildReport({ runId, sample, routes, reference, verdicts, labels });
  await writeFileAtomic(reportFile(runDir, 'json'), `${JSON.stringify(reportDocument(report), null, 2)}\n`);
  await writeFileAtomic(reportFile(runDir, 'md'), renderMarkdown(report));
  await writeFileAtomic(reportFile(runDir, 'html'), renderHtml(report));
  return report;
}
