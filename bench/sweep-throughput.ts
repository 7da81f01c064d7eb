// bench/sweep-throughput: a gate sweep through the whole system — a dev server, one `commonplace worker`
// process (the compiled CLI: run `npm run build` first), the sweep and batch workflows, their activities
// and result files — printing pairs per second, history events per pair, and CPU seconds per pair of the
// worker process and of the Temporal server process (read from /proc/<pid>/stat before and after).
//   live API   the `anthropic` executor at a local stand-in of the Messages API that answers at once
//              (test/helpers/model-apis/), pair grouping, at each concurrency asked;
//   fake       the fake harness (a process per launch), with a smaller pair count.
// Each route first sweeps one note to warm the worker up; the figures are the sweep after it.
// bench/review-cost.ts keeps the executor-only figure (the launch activity called in-process).
// Usage: npx tsx bench/sweep-throughput.ts [api-notes=55] [fake-notes=6] [api-concurrency=16,64] [fake-concurrency=16] [batch-size]
import { execa } from 'execa';
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
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
import { sweepHistory } from './sweep-history.js';

const [apiNotes = 55, fakeNotes = 6] = process.argv.slice(2, 4).map(Number);
const concurrencies = (text: string | undefined, fallback: number[]) => (text ? text.split(',').map(Number) : fallback);
const apiConcurrency = concurrencies(process.argv[4], [16, 64]);
const fakeConcurrency = concurrencies(process.argv[5], [16]);
/** Launches per child workflow (`--batch-size`); absent: the profile's default, as the CLI's is (500 on a model API, 100 on a CLI). */
const batchSize = process.argv[6] === undefined ? {} : { batchSize: Number(process.argv[6]) };
const KEY_ENV = 'COMMONPLACE_BENCH_API_KEY';
const TICKS = Number((await execa('getconf', ['CLK_TCK'])).stdout) || 100;

/** CPU seconds a process has used (user + system), and those of its children it waited for. */
function cpuOf(pid: number): { own: number; children: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields from the state on: utime is the 12th, stime 13th, cutime 14th, cstime 15th (0-based 11..14).
  const [utime, stime, cutime, cstime] = fields.slice(11, 15).map(Number) as [number, number, number, number];
  return { own: (utime + stime) / TICKS, children: (cutime + cstime) / TICKS };
}

/** The Temporal dev server this process started (a child whose command line says `start-dev`). */
function serverPid(): number {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === process.pid && readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('start-dev')) return Number(entry);
    } catch {
      // a process that ended meanwhile
    }
  }
  throw new Error('bench: the dev server process was not found among this process’s children');
}

const env = await startDevEnvironment();
const server = serverPid();

interface Route {
  name: string;
  notes: string[];
  input: Omit<SweepInput, 'runId' | 'notes' | 'concurrency'>;
  workerEnv: Record<string, string>;
}

async function sweep(route: Route, runId: string, notes: string[], concurrency: number): Promise<{ summary: SweepSummary; seconds: number }> {
  const started = performance.now();
  const summary = (await env.client.workflow.execute('gateSweep', {
    taskQueue: TASK_QUEUE,
    workflowId: `gates/${runId}`,
    args: [{ ...route.input, runId, notes, concurrency } satisfies SweepInput],
  })) as SweepSummary;
  return { summary, seconds: (performance.now() - started) / 1000 };
}

async function measure(route: Route, concurrency: number): Promise<void> {
  const checkout = route.input.checkout;
  const pairs = (await selectPairs(checkout, { notes: route.notes.slice(1), criteria: ['gates'] })).filter((pair) => pair.status !== 'fresh').length;
  const { child: worker } = await startWorkerProcess(env, checkout, route.workerEnv);
  const tag = `${route.name.replace(/\W+/g, '-')}-${concurrency}-${Date.now().toString(36)}`;
  await sweep(route, `GS-warm-${tag}`, route.notes.slice(0, 1), concurrency);
  const load = loadavg()[0]!;
  const before = { worker: cpuOf(worker.pid!), server: cpuOf(server) };
  const { summary, seconds } = await sweep(route, `GS-bench-${tag}`, route.notes.slice(1), concurrency);
  const after = { worker: cpuOf(worker.pid!), server: cpuOf(server) };
  const { events, runs } = await sweepHistory(env.client, `GS-bench-${tag}`);
  worker.kill('SIGINT');
  await worker;
  const done = summary.counts.pairsDone;
  const per = (value: number) => (value / done).toFixed(4);
  console.log(
    `${route.name.padEnd(8)} concurrency ${String(concurrency).padStart(3)}: ${done} pairs (of ${pairs} stale) in ${seconds.toFixed(1)} s = ${(done / seconds).toFixed(1)} pairs/s; ` +
      `${summary.counts.tries} launches; ${events} events in ${runs} runs = ${(events / done).toFixed(1)} events/pair; ` +
      `CPU s/pair: worker ${per(after.worker.own - before.worker.own)}` +
      `${route.name === 'fake' ? ` (+ harness processes ${per(after.worker.children - before.worker.children)})` : ''}` +
      `, server ${per(after.server.own - before.server.own)}; load ${load.toFixed(1)} → ${loadavg()[0]!.toFixed(1)}`,
  );
}

/** Notes of the corpus in name order, every applicable gate of each: about 40 pairs a note. */
async function notesOf(checkout: string, count: number): Promise<string[]> {
  const all = await selectPairs(checkout, { criteria: ['gates'] });
  return [...new Set(all.map((pair) => pair.note))].sort().slice(0, count + 1);
}

console.log(`sweep throughput through the system: dev server + one \`commonplace worker\` process, pair grouping, ${(await execa('nproc')).stdout} cores`);

// The live API route: the anthropic executor at a stand-in answering every request at once with a pass.
{
  const standIn = await startStandIn('anthropic', reply.review('pass'));
  const dir = await scratch();
  const profilesFile = await standInProfiles(dir, 'api', 'anthropic', 'claude-sonnet-4-5', standIn.url, KEY_ENV);
  for (const concurrency of apiConcurrency) {
    const checkout = await corpusCopy();
    const route: Route = {
      name: 'live API',
      notes: await notesOf(checkout, apiNotes),
      input: { checkout, gates: [], criteria: ['gates'], grouping: 'pair', profile: 'api', ...batchSize, autoResume: false, profilesFile },
      workerEnv: { [KEY_ENV]: 'stand-in-key' },
    };
    await measure(route, concurrency);
  }
  await standIn.close();
}

// The fake harness: one process per launch.
{
  const dir = await scratch();
  const { env: fakeEnv } = await fakeScenario(dir, [{ attempts: [{ review: 'pass' }] }]);
  const profilesFile = await fakeProfilesFile(dir, { fake: { harness: 'fake', timeout: '1m' } });
  for (const concurrency of fakeConcurrency) {
    const checkout = await corpusCopy();
    const route: Route = {
      name: 'fake',
      notes: await notesOf(checkout, fakeNotes),
      input: { checkout, gates: [], criteria: ['gates'], grouping: 'pair', profile: 'fake', ...batchSize, autoResume: false, profilesFile, env: fakeEnv },
      workerEnv: {},
    };
    await measure(route, concurrency);
  }
}
await env.teardown();
