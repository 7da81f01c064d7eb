/** A compare run's end: its report written from the run directory, and its summary beside it. */
import { join } from 'node:path';
import { writeFileAtomic } from '../../../fs/atomic.js';
import type { CompareProgress, CompareSummary } from '../../../review/compare/run-types.js';
import { reportLines } from '../../../review/compare/report-lines.js';
import { compareRunDir } from './run-dir.js';
import { writeCompareReport } from './report-files.js';

/** Writes the report (json, md, html) and the summary of a compare run; returns the summary. */
export async function finishCompare(input: { checkout: string; runId: string; progress: CompareProgress }): Promise<CompareSummary> {
  const runDir = compareRunDir(input.checkout, input.runId);
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
