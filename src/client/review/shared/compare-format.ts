/** How a compare run reads to the operator: the live line (a sweep's, with the route asked), a stop with its one next command, the closing summary with the report's paths. */
import type { Client } from '@temporalio/client';
import type { CompareProgress, CompareSummary } from '../../../review/compare/run-types.js';
import { spendLine, tokensLine } from '../../../runs/spend.js';
import { compareProgressQuery, type compareRun } from '../../../workflows/compare.js';
import { compareNext } from '../../../runs/run-commands.js';
import type { FollowFormat } from '../../shared/follow.js';
import { liveSuffix } from '../../shared/live-launches.js';
import { nextStep } from '../../shared/stop-format.js';
import { progressLine, runningBatch, runStop } from './sweep-format.js';

/** Each route's line: verdicts kept of the sample, or read from the KB's result files. */
export function routeLines(progress: CompareProgress, indent = '  '): string[] {
  return progress.routes.map((route) =>
    route.state === 'read'
      ? `${indent}${route.route.padEnd(24)} ${route.done} of ${progress.sampleSize} pairs read from the KB's fresh result files`
      : `${indent}${route.route.padEnd(24)} ${route.done} of ${route.pairs} verdicts kept${route.problems > 0 ? `, ${route.problems} problems` : ''}`,
  );
}

/** The closing summary: the routes, what was spent, the report's overall lines and its paths. */
export function formatCompareSummary(summary: CompareSummary): string {
  const { counts } = summary;
  const lines = [
    `compare run ${summary.runId} ${summary.status === 'completed' ? 'completed' : summary.status}: ${summary.sampleSize} pairs under ${summary.routes.length} routes`,
    ...routeLines(summary),
    `  launches / tries   ${counts.launches} / ${counts.tries}`,
    `  cost               ${counts.launches > 0 ? spendLine({ ...counts, ...(summary.spend?.capUsd !== undefined && { capUsd: summary.spend.capUsd }) }) : 'nothing launched'}`,
    `  tokens             ${tokensLine(counts.tokens)}`,
    ...summary.overall.map((line) => `  ${line}`),
    `  report             ${summary.report.md}`,
    `                     ${summary.report.html}`,
    `                     ${summary.report.json}`,
    `  run directory      ${summary.runDir}`,
  ];
  return lines.join('\n');
}

/** A compare run's stop as the operator reads it. */
export const formatCompareStop = (progress: CompareProgress) =>
  runStop('compare run', progress, 'verdicts kept so far are not asked again', compareNext(progress.runId));

/** How the follow loop reads a compare run. */
export function compareFormat(client: Client, options: { json?: boolean } = {}): FollowFormat<CompareProgress, Awaited<ReturnType<typeof compareRun>>> {
  const startedAt = Date.now();
  return {
    query: compareProgressQuery,
    json: options.json ?? false,
    line: async (progress) => {
      const { batch, live } = await runningBatch(client, progress.currentBatch);
      return `${progressLine(progress, batch, { now: Date.now(), startedAt })}${progress.route ? ` · route ${progress.route}` : ''}${liveSuffix(live)}`;
    },
    stopped: formatCompareStop,
    next: (progress) => nextStep(progress.stops, progress.status, compareNext(progress.runId), progress.spend)?.command,
    result: (summary) => ({ text: formatCompareSummary(summary), status: 'completed' }),
  };
}
