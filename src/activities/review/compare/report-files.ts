/**
 * The compare run's report files (placeholder until the report's statistics and renderings arrive):
 * reads the run directory and writes `report.json` with the routes, the sample and each route's
 * cost per pair; agreement and κ are left empty here.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../../../fs/atomic.js';
import { emptyTokens } from '../../../runs/spend.js';
import { COMPARE_RUN_FILE, type CompareReport, type CompareRunFile, type CompareSample } from '../../../review/compare/types.js';
import { compareDirOf, sampleFile } from './run-dir.js';
import { readVerdicts } from './verdicts.js';

/** Reads a compare run's directory and writes its report files; returns the report. */
export async function writeCompareReport(checkoutRoot: string, runId: string): Promise<CompareReport> {
  const runDir = compareDirOf(checkoutRoot, runId);
  const sample = JSON.parse(await readFile(sampleFile(runDir), 'utf8')) as CompareSample;
  const input = JSON.parse(await readFile(join(runDir, COMPARE_RUN_FILE), 'utf8')) as CompareRunFile;
  const verdicts = await readVerdicts(runDir);
  const costs = input.routes.map((route) => {
    const own = verdicts.filter((verdict) => verdict.route === route);
    const tokens = emptyTokens();
    for (const verdict of own) for (const key of Object.keys(tokens) as (keyof typeof tokens)[]) tokens[key] += verdict.tokens[key] / Math.max(own.length, 1);
    const priced = own.every((verdict) => verdict.costUsd !== null);
    return { route, pairs: own.length, costUsdPerPair: priced && own.length > 0 ? own.reduce((sum, verdict) => sum + (verdict.costUsd ?? 0), 0) / own.length : null, tokensPerPair: tokens };
  });
  const report: CompareReport = { runId, routes: input.routes, reference: input.reference, sample: { seed: sample.seed, size: sample.size }, overall: [], criteria: [], costs };
  await writeFileAtomic(join(runDir, 'report.json'), `${JSON.stringify(report, null, 2)}\n`);
  return report;
}
