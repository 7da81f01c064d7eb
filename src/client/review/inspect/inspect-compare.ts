/** `review inspect` for a compare run: status (live while open), each route's verdicts, then the report's lines and files. */
import type { Client } from '@temporalio/client';
import path from 'node:path';
import type { CompareProgress, CompareSummary, RouteProgress } from '../../../review/compare/run-types.js';
import { reportLines } from '../../../review/compare/report-lines.js';
import type { CompareReport, CompareSample } from '../../../review/compare/types.js';
import { compareRunDir, reportFile } from '../../../review/compare/run-files.js';
import { compareProgressQuery } from '../../../workflows/messages.js';
import { UserError } from '../../shared/errors.js';
import { routeLines } from '../shared/compare-format.js';
import { readJson } from './inspect-files.js';
import { compareRunIdOf, compareWorkflowId } from '../../../runs/workflow-ids.js';
import { pathExists } from '../../../fs/exists.js';

/** What `review inspect` shows of a compare run (docs/schemas/compare-inspect.v1.schema.json). */
export interface CompareInspected {
  kind: 'compare';
  runId: string;
  workflowId: string;
  status: string;
  runDir: string;
  sampleSize: number | null;
  routes: RouteProgress[];
  /** The report's overall lines and cost per pair (empty until the report is written). */
  overall: string[];
  /** The report's files, once written. */
  report: { json: string; md: string; html: string } | null;
}

/** The compare run RUN names (`CMP-…` or `compare/CMP-…`), or undefined when it is no compare run of this checkout. */
export async function compareRunOf(checkout: string, run: string): Promise<string | undefined> {
  const runId = compareRunIdOf(run);
  if (!/^[A-Za-z0-9._-]+$/.test(runId)) return undefined;
  const there = await pathExists(compareRunDir(checkout, runId));
  return there || runId !== run ? runId : undefined;
}

/** Gathers a compare run from its directory and, while it is open, its workflow's progress. */
export async function inspectCompare(checkout: string, runId: string, client: Client | undefined): Promise<CompareInspected> {
  const runDir = compareRunDir(checkout, runId);
  const workflowId = compareWorkflowId(runId);
  const summary = await readJson<CompareSummary>(path.join(runDir, 'summary.json'));
  const live =
    summary === undefined && client
      ? await client.workflow
          .getHandle(workflowId)
          .query(compareProgressQuery)
          .catch(() => undefined)
      : undefined;
  const sample = await readJson<CompareSample>(path.join(runDir, 'sample.json'));
  const report = await readJson<CompareReport>(reportFile(runDir, 'json'));
  if (!summary && !live && !sample)
    throw new UserError(`no compare run ${runId} in ${checkout}: no ${runDir}${client ? `, and no open workflow ${workflowId} on the server` : ''}`);
  const progress: CompareProgress | undefined = summary ?? live;
  return {
    kind: 'compare',
    runId,
    workflowId,
    status: progress?.status ?? 'unknown',
    runDir,
    sampleSize: sample?.size ?? null,
    routes: progress?.routes ?? [],
    overall: report ? reportLines(report) : [],
    report: report ? { json: reportFile(runDir, 'json'), md: reportFile(runDir, 'md'), html: reportFile(runDir, 'html') } : null,
  };
}

/** The compare run as text: status, routes, the report's overall lines and its paths. */
export function formatCompareInspected(inspected: CompareInspected): string {
  const lines = [
    `compare run ${inspected.runId} (${inspected.workflowId}): ${inspected.status}${inspected.sampleSize !== null ? `, a sample of ${inspected.sampleSize} pairs` : ''}`,
    ...routeLines({ routes: inspected.routes, sampleSize: inspected.sampleSize ?? 0 } as CompareProgress),
    ...inspected.overall.map((line) => `  ${line}`),
  ];
  if (inspected.report)
    lines.push(`  report             ${inspected.report.md}`, `                     ${inspected.report.html}`, `                     ${inspected.report.json}`);
  else lines.push('  report             not written yet (the run writes it as it ends)');
  lines.push(`  run directory      ${inspected.runDir}`);
  return lines.join('\n');
}
