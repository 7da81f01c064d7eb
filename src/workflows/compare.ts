import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { CompareInput, CompareProgress, CompareSummary, PreparedCompare, PreparedRoute, RouteProgress } from '../review/compare/run-types.js';
import type { SweepCounts } from '../review/sweep-types.js';
import { emptyCounts, spentSoFar } from '../review/sweep-types.js';
import { compareNext, runCommand } from '../runs/run-commands.js';
import { runDetails } from '../runs/run-details.js';
import { compareBatchId } from '../runs/workflow-ids.js';
import { batchSearchAttributes, runBatches } from './batch-loop.js';
import { Lifecycle } from './lifecycle.js';
import { compareAcknowledgeUpdate, compareProgressQuery, compareResumeUpdate } from './messages.js';

const { prepareCompare, collectVerdicts, finishCompare, recordProblems } = proxyActivities<Activities>({
  startToCloseTimeout: '10m',
  heartbeatTimeout: '30s',
  retry: { maximumAttempts: 3 },
});

export { compareAcknowledgeUpdate, compareProgressQuery, compareResumeUpdate } from './messages.js';

/** The kind of a compare run's batches: `CommonplaceKind = "compare"` lists the runs alone. */
const COMPARE_BATCH_KIND = 'compare-batch';

interface CompareState {
  prepared?: PreparedCompare;
  counts: SweepCounts;
  routes: RouteProgress[];
  route?: string;
  /** Batches finished over every route. */
  batch: number;
  currentBatch?: string;
}

/** A reproducible sample asked under every route through the sweep's own batches, verdicts kept in the run's directory, never the KB's results. */
export async function compareRun(input: CompareInput): Promise<CompareSummary> {
  const { runId } = input;
  const state: CompareState = {
    counts: emptyCounts(),
    routes: input.routes.map((route) => ({ route, pairs: 0, done: 0, problems: 0, state: 'waiting' })),
    batch: 0,
  };
  const totals = () => ({
    batches: state.prepared?.asked.reduce((sum, route) => sum + route.batches, 0) ?? 0,
    units: state.prepared?.asked.reduce((sum, route) => sum + route.units, 0) ?? 0,
  });
  const lifecycle: Lifecycle<CompareProgress> = new Lifecycle<CompareProgress>({
    runId,
    view: {
      headline: (stage) => stage,
      next: compareNext(runId),
      inspect: runCommand.queryProgress(workflowInfo().workflowId),
      details: () =>
        state.routes.map(
          (route) =>
            `${route.route}: ${route.state === 'read' ? `${route.done} verdicts read from the KB's result files` : `${route.done} of ${route.pairs} pairs${route.problems > 0 ? `, ${route.problems} problems` : ''} (${route.state})`}`,
        ),
    },
    autoResume: false,
    progress: {
      query: compareProgressQuery,
      build: (common) => ({
        ...common,
        pairs: (state.prepared?.sampleSize ?? 0) * (state.prepared?.asked.length ?? 0),
        units: totals().units,
        batches: totals().batches,
        batch: state.batch,
        ...(state.currentBatch !== undefined && { currentBatch: state.currentBatch }),
        counts: state.counts,
        routes: state.routes,
        ...(state.route !== undefined && { route: state.route }),
        sampleSize: state.prepared?.sampleSize ?? 0,
      }),
    },
    updates: { resume: compareResumeUpdate, acknowledge: compareAcknowledgeUpdate },
    spend: { ...(input.maxCostUsd !== undefined && { maxCostUsd: input.maxCostUsd }), totals: state.counts },
  });
  const finish = (progress: CompareProgress) =>
    finishCompare.executeWithOptions({ summary: `write the report of compare run ${runId}` }, [{ checkout: input.checkout, runId, progress }]);
  return lifecycle.close(
    async () => {
      lifecycle.at('drawing the sample');
      const prepared = await prepareCompare.executeWithOptions({ summary: `draw the sample of compare run ${runId} and prepare its routes` }, [input]);
      state.prepared = prepared;
      for (const route of state.routes) {
        const asked = prepared.asked.find((entry) => entry.route === route.route);
        const read = prepared.read.find((entry) => entry.route === route.route);
        if (asked) route.pairs = asked.pairs;
        if (read) Object.assign(route, { pairs: prepared.sampleSize, done: read.pairs, state: 'read' });
      }
      for (const route of prepared.asked) await askRoute(input, route, lifecycle, state);
      state.route = undefined;
      const counts = state.counts;
      const summary = await finish(
        lifecycle.completing(
          `completed: ${prepared.sampleSize} pairs under ${input.routes.length} routes, ${counts.problems} problems, ${counts.staleOnArrival} stale on arrival`,
        ),
      );
      lifecycle.complete('completed', lifecycle.stage);
      return summary;
    },
    async () => finish(lifecycle.progress()),
  );
}

/** One route's units batch by batch in the sweep's batch workflow, its verdicts going to the compare run's directory. */
async function askRoute(input: CompareInput, route: PreparedRoute, lifecycle: Lifecycle<CompareProgress>, state: CompareState): Promise<void> {
  const progress = state.routes.find((entry) => entry.route === route.route)!;
  progress.state = 'asking';
  state.route = route.route;
  await runBatches({
    batches: route.batches,
    counts: state.counts,
    state,
    child: ({ batch, resumes, remaining }) => {
      lifecycle.at(`route ${route.route}, batch ${batch + 1} of ${route.batches}: ${progress.done} of ${progress.pairs} pairs done`);
      return {
        workflowId: compareBatchId(workflowInfo().workflowId, route.askRunId.slice(input.runId.length + 2), batch, resumes),
        input: {
          runId: route.askRunId,
          checkout: input.checkout,
          profile: route.profile,
          concurrency: input.concurrency,
          compare: { runId: input.runId, route: route.route },
          // A batched route's units go as provider batches, as a `--batch` sweep's do (docs/batches.md).
          ...(route.route.endsWith(':batch') && { providerBatch: true }),
          ...(lifecycle.spend.capUsd !== undefined && { maxCostUsd: lifecycle.spend.capUsd }),
          spentBefore: spentSoFar(state.counts),
        },
        options: {
          staticSummary: `compare run ${input.runId}: route ${route.route}, batch ${batch + 1} of ${route.batches}${resumes > 0 ? ` (resume ${resumes})` : ''}`,
          staticDetails: runDetails(`compare batch ${batch + 1} of ${route.batches}`, [
            ['compare run', input.runId],
            ['route', route.route],
            ['parent workflow', workflowInfo().workflowId],
            ['resume', resumes > 0 ? resumes : undefined],
            ['units', remaining ? `${remaining.length} left by the stop` : `${route.units} in the route`],
          ]),
          ...batchSearchAttributes(COMPARE_BATCH_KIND, input.runId, route.profile.name),
        },
      };
    },
    returned: (result) => {
      progress.done += result.counts.written.pass + result.counts.written.warn + result.counts.written.fail;
      progress.problems += result.counts.problems;
    },
    problems: async (problems) => {
      await recordProblems.executeWithOptions({ summary: `record ${problems.length} problems of route ${route.route}` }, [
        { checkout: input.checkout, runId: route.askRunId, problems },
      ]);
    },
    waitOut: (stop) => lifecycle.waitOut(stop),
    finished: async () => {
      state.batch += 1;
    },
  });
  await collectVerdicts.executeWithOptions({ summary: `gather the verdicts of route ${route.route}` }, [
    { checkout: input.checkout, runId: input.runId, route: route.route },
  ]);
  progress.state = 'done';
}
