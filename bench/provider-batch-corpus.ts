// bench/provider-batch-corpus: `review run gates --batch` at the defaults over the whole shared corpus at a local
// Anthropic stand-in (test/helpers/model-apis/), then one gate batch of 5,000 units (`--batch-size 5000`): a dev
// server and one `commonplace worker` process (the compiled CLI: run `npm run build` first), pair grouping. It
// prints the pairs, the gate batches and their executions (continue-as-new), the longest history, custom_ids
// submitted more than once, and the tokens and requests the stand-in billed against those the sweep counted.
// The stand-in ends each provider batch at its first poll, so the sweep's timers do not wait.
// Usage: npx tsx bench/provider-batch-corpus.ts [single-batch-units=5000]
import { selectPairs } from '../src/review/status.js';
import type { SweepInput, SweepSummary } from '../src/review/sweep-types.js';
import { TASK_QUEUE } from '../src/search-attributes.js';
import { scratch } from '../test/helpers/fake.js';
import { corpusCopy } from '../test/helpers/kb.js';
import { reply } from '../test/helpers/model-apis/replies.js';
import { startStandIn, type StandIn } from '../test/helpers/model-apis/stand-in.js';
import { startDevEnvironment } from '../test/helpers/temporal.js';
import { standInProfiles, startWorkerProcess } from './sweep-parts.js';

const singleBatch = Number(process.argv[2] ?? 5000);
const KEY_ENV = 'COMMONPLACE_BENCH_API_KEY';
/** Every criterion kind, as `review run gates` sweeps by default: gates, type specs, COLLECTION.md files. */
const criteria: SweepInput['criteria'] = ['gates', 'types', 'collections'];
const env = await startDevEnvironment();

/** What the stand-in answered inside its provider batches: requests and tokens, as the provider would bill them. */
function billed(standIn: StandIn): { requests: number; input: number; output: number } {
  const totals = { requests: 0, input: 0, output: 0 };
  for (const batch of standIn.batches.list)
    for (const held of batch.requests) {
      if (held.result?.kind !== 'succeeded') continue;
      const usage = (held.result.body as { usage?: Record<string, number> }).usage ?? {};
      totals.requests += 1;
      totals.input += (usage.input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0);
      totals.output += usage.output_tokens ?? 0;
    }
  return totals;
}

async function run(label: string, notes: string[], batchSize?: number): Promise<void> {
  const checkout = await corpusCopy();
  const standIn = await startStandIn('anthropic', reply.review('pass'));
  standIn.batches.endAfterPolls = 1;
  const dir = await scratch();
  const profilesFile = await standInProfiles(dir, 'bench', 'anthropic', 'claude-haiku-4-5', standIn.url, KEY_ENV);
  const { child: worker } = await startWorkerProcess(env, checkout, { [KEY_ENV]: 'stand-in-key' });
  const runId = `GS-batch-corpus-${Date.now().toString(36)}`;
  const started = performance.now();
  const input: SweepInput = {
    checkout,
    runId,
    notes,
    gates: [],
    criteria,
    grouping: 'pair',
    profile: 'bench',
    autoResume: false,
    profilesFile,
    batch: 'always',
    ...(batchSize && { batchSize }),
  };
  const summary = (await env.client.workflow.execute('gateSweep', { taskQueue: TASK_QUEUE, workflowId: `gates/${runId}`, args: [input] })) as SweepSummary;
  const seconds = (performance.now() - started) / 1000;
  const executions = new Map<string, number>();
  let longest = { events: 0, bytes: 0 };
  for await (const execution of env.client.workflow.list({ query: `WorkflowId STARTS_WITH "gates/${runId}/"` })) {
    executions.set(execution.workflowId, (executions.get(execution.workflowId) ?? 0) + 1);
    if (execution.historyLength > longest.events) longest = { events: execution.historyLength, bytes: execution.historySize ?? 0 };
  }
  worker.kill('SIGINT');
  await worker;
  const twice = [...standIn.batches.submitted].filter(([, times]) => times > 1).length;
  const bill = billed(standIn);
  const tokens = summary.counts.tokens ?? { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  console.log(
    `${label}: ${summary.status}, ${summary.counts.pairsDone} of ${summary.pairs} pairs in ${seconds.toFixed(0)} s; ${summary.batches} gate batches, ` +
      `${Math.max(...executions.values())} execution(s) at most a batch; longest history ${longest.events.toLocaleString('en')} events, ${(longest.bytes / 1e6).toFixed(2)} MB; ` +
      `custom_ids submitted twice: ${twice}; billed ${bill.requests} requests, ${bill.input.toLocaleString('en')} input + ${bill.output.toLocaleString('en')} output tokens; ` +
      `counted ${summary.counts.launches} launches, ${(tokens.input + tokens.cacheRead + tokens.cacheWrite).toLocaleString('en')} input + ${tokens.output.toLocaleString('en')} output tokens, $${summary.counts.costUsd.toFixed(4)}`,
  );
  await standIn.close();
}

const corpus = await corpusCopy();
const all = await selectPairs(corpus, { criteria });
const notes = [...new Set(all.map((pair) => pair.note))].sort();
await run('the whole corpus, defaults', notes);
// The first notes whose pairs make up the single batch's units.
const counts = new Map<string, number>();
for (const pair of all) counts.set(pair.note, (counts.get(pair.note) ?? 0) + 1);
const some: string[] = [];
let units = 0;
for (const note of notes) {
  if (units >= singleBatch) break;
  some.push(note);
  units += counts.get(note) ?? 0;
}
await run(`one gate batch of ${units} units`, some, units);
await env.teardown();
