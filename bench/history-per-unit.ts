// bench/history-per-unit: what one unit of a gate sweep costs in Temporal history — bytes and events over every
// run of the sweep's workflows (the sweep, its batches, their continuations) — by route: the fake CLI harness,
// the Anthropic and OpenAI executors live, and both as provider batches, each at a local stand-in of its API
// (test/helpers/model-apis/). A dev server and one `commonplace worker` process (the compiled CLI: run
// `npm run build` first) over a copy of the shared corpus, pair grouping.
// Usage: npx tsx bench/history-per-unit.ts [notes=3] [routes=fake,anthropic,openai,anthropic-batch,openai-batch]
import { selectPairs } from '../src/review/status.js';
import type { SweepInput, SweepSummary } from '../src/review/sweep-types.js';
import { TASK_QUEUE } from '../src/search-attributes.js';
import { fakeScenario, scratch } from '../test/helpers/fake.js';
import { corpusCopy } from '../test/helpers/kb.js';
import { reply } from '../test/helpers/model-apis/replies.js';
import { startStandIn } from '../test/helpers/model-apis/stand-in.js';
import { fakeProfilesFile } from '../test/helpers/probe.js';
import { startDevEnvironment } from '../test/helpers/temporal.js';
import { standInProfiles, startWorkerProcess } from './sweep-parts.js';

const notesWanted = Number(process.argv[2] ?? 3);
const routes = (process.argv[3] ?? 'fake,anthropic,openai,anthropic-batch,openai-batch').split(',');
const KEY_ENV = 'COMMONPLACE_BENCH_API_KEY';
const models = { anthropic: 'claude-haiku-4-5', openai: 'gpt-5-mini' } as const;

const env = await startDevEnvironment();

/** Bytes and events over every run of the sweep's workflows, and the longest single history. */
async function history(runId: string): Promise<{ bytes: number; events: number; runs: number; longest: number }> {
  const totals = { bytes: 0, events: 0, runs: 0, longest: 0 };
  for await (const execution of env.client.workflow.list({ query: `WorkflowId STARTS_WITH "gates/${runId}"` })) {
    totals.bytes += execution.historySize ?? 0;
    totals.events += execution.historyLength;
    totals.runs += 1;
    totals.longest = Math.max(totals.longest, execution.historyLength);
  }
  return totals;
}

async function measure(route: string): Promise<void> {
  const checkout = await corpusCopy();
  const all = await selectPairs(checkout, { criteria: ['gates'] });
  const notes = [...new Set(all.map((pair) => pair.note))].sort().slice(0, notesWanted);
  const dir = await scratch();
  const api = route.startsWith('openai') ? 'openai' : 'anthropic';
  let profilesFile: string;
  let workerEnv: Record<string, string> = {};
  let extra: Partial<SweepInput> = {};
  let close = async () => undefined as unknown;
  if (route === 'fake') {
    const { env: fakeEnv } = await fakeScenario(dir, [{ attempts: [{ review: 'pass' }] }]);
    profilesFile = await fakeProfilesFile(dir, { bench: { harness: 'fake', timeout: '1m' } });
    extra = { env: fakeEnv };
  } else {
    const standIn = await startStandIn(api, reply.review('pass'));
    close = () => standIn.close();
    profilesFile = await standInProfiles(dir, 'bench', api, models[api], standIn.url, KEY_ENV);
    workerEnv = { [KEY_ENV]: 'stand-in-key' };
    if (route.endsWith('-batch')) extra = { batch: 'always' };
  }
  const { child: worker } = await startWorkerProcess(env, checkout, workerEnv);
  const runId = `GS-history-${route}-${Date.now().toString(36)}`;
  const summary = (await env.client.workflow.execute('gateSweep', {
    taskQueue: TASK_QUEUE,
    workflowId: `gates/${runId}`,
    args: [
      {
        checkout,
        runId,
        notes,
        gates: [],
        criteria: ['gates'],
        grouping: 'pair',
        profile: 'bench',
        autoResume: false,
        profilesFile,
        ...extra,
      } satisfies SweepInput,
    ],
  })) as SweepSummary;
  const seen = await history(runId);
  worker.kill('SIGINT');
  await worker;
  await close();
  const units = summary.counts.pairsDone;
  console.log(
    `| ${route} | ${units} | ${Math.round(seen.bytes / units).toLocaleString('en')} | ${(seen.events / units).toFixed(1)} | ${seen.runs} | ${seen.longest.toLocaleString('en')} |`,
  );
}

console.log(`history a unit of a gate sweep, ${notesWanted} notes of the shared corpus, pair grouping`);
console.log('| route | units | history bytes a unit | events a unit | workflow runs | longest history (events) |');
console.log('| --- | --- | --- | --- | --- | --- |');
for (const route of routes) await measure(route);
await env.teardown();
