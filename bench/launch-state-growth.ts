// bench/launch-state-growth: whether a launch costs more as the worker's state directory grows.
// One dev server and one worker with one state directory; the same gate sweep (the instant fake
// harness, pair grouping) is measured on a fresh state, then again after N earlier sweeps of the same
// size (each under its own run ID, so each leaves its launch directories in the state). Prints per
// measured sweep: the state's entries before it, pairs/s, the launch activity's median and p95 time
// (scheduled to completed, from the histories), and what the stray-write check visits for one try in
// that state (`watchStateWrites(...).check`: entries and time) beside the entries the old whole-state
// walk would have looked at. A control sweep follows on a fresh state and worker, so that a change in
// the machine's load between the first and the last measurement shows as such.
// Usage: npx tsx bench/launch-state-growth.ts [earlier sweeps=20] [notes=2] [concurrency=8]
import type { Client } from '@temporalio/client';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { watchStateWrites } from '../src/activities/harness/state-writes.js';
import type { SweepInput, SweepSummary } from '../src/review/sweep-types.js';
import { TASK_QUEUE } from '../src/search-attributes.js';
import { fakeScenario, scratch } from '../test/helpers/fake.js';
import { corpusCopy, someNotes } from '../test/helpers/kb.js';
import { fakeProfilesFile } from '../test/helpers/probe.js';
import { startDevEnvironment, testWorker } from '../test/helpers/temporal.js';

const earlier = Number(process.argv[2] ?? 20);
const noteCount = Number(process.argv[3] ?? 2);
const concurrency = Number(process.argv[4] ?? 8);

const quantile = (values: number[], q: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
};
const ms = (time: { seconds?: unknown; nanos?: number | null } | null | undefined): number => Number(time?.seconds ?? 0) * 1000 + (time?.nanos ?? 0) / 1e6;

/** Entries under a directory: what the old check walked (with an lstat each) after every try. */
async function entriesUnder(dir: string): Promise<number> {
  let count = 0;
  const pending = [dir];
  while (pending.length > 0) {
    const entries = await readdir(pending.pop() as string, { withFileTypes: true }).catch(() => []);
    count += entries.length;
    for (const entry of entries) if (entry.isDirectory()) pending.push(join(entry.parentPath ?? entry.path, entry.name));
  }
  return count;
}

/** The launch activities' times (scheduled to completed) over every workflow run of a sweep. */
async function launchTimes(client: Client, runId: string): Promise<number[]> {
  const times: number[] = [];
  for await (const execution of client.workflow.list({ query: `WorkflowId = "gates/${runId}" OR WorkflowId STARTS_WITH "gates/${runId}/"` })) {
    const events = (await client.workflow.getHandle(execution.workflowId, execution.runId).fetchHistory()).events ?? [];
    const scheduled = new Map<string, number>();
    for (const event of events) {
      const attributes = event.activityTaskScheduledEventAttributes;
      if (attributes?.activityType?.name === 'launch') scheduled.set(String(event.eventId), ms(event.eventTime));
      const completed = event.activityTaskCompletedEventAttributes;
      const at = completed && scheduled.get(String(completed.scheduledEventId));
      if (at !== undefined && at !== null) times.push(ms(event.eventTime) - at);
    }
  }
  return times;
}

/** One try's stray-write check in this state, played: a launch directory of a new run, one output written. */
async function oneCheck(stateDir: string, label: string): Promise<{ visited: number; ms: number }> {
  const dir = join(stateDir, 'review', `GS-bench-check-${label}`, 'unit-a-0123456789', 'attempt-1');
  const watch = await watchStateWrites(stateDir, dir);
  try {
    const since = Date.now();
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'out.md'), 'mine\n');
    const started = performance.now();
    const check = await watch.check(since);
    return { visited: check.visited, ms: performance.now() - started };
  } finally {
    watch.close();
    await rm(join(stateDir, 'review', `GS-bench-check-${label}`), { recursive: true, force: true });
  }
}

const env = await startDevEnvironment();
const checkout = await corpusCopy();
const dir = await scratch();
const stateDir = join(dir, 'state');
const { env: fakeEnv } = await fakeScenario(dir, [{ attempts: [{ review: 'pass' }] }]);
const profilesFile = await fakeProfilesFile(dir, { fake: { harness: 'fake', timeout: '1m' } });
const notes = await someNotes(noteCount);
const worker = await testWorker(env, { stateDir });

async function sweep(runId: string): Promise<{ pairs: number; seconds: number }> {
  await rm(join(checkout, 'kb', 'reports'), { recursive: true, force: true });
  const input: SweepInput = {
    checkout,
    runId,
    notes,
    gates: [],
    criteria: ['gates'],
    grouping: 'pair',
    profile: 'fake',
    concurrency,
    batchSize: 100,
    autoResume: false,
    profilesFile,
    env: fakeEnv,
  };
  const started = performance.now();
  const summary = (await env.client.workflow.execute('gateSweep', { taskQueue: TASK_QUEUE, workflowId: `gates/${runId}`, args: [input] })) as SweepSummary;
  return { pairs: summary.counts.pairsDone, seconds: (performance.now() - started) / 1000 };
}

async function measured(label: string, state = stateDir): Promise<void> {
  const entries = await entriesUnder(state);
  const check = await oneCheck(state, label);
  const runId = `GS-bench-growth-${label}`;
  const { pairs, seconds } = await sweep(runId);
  const times = await launchTimes(env.client, runId);
  console.log(
    `${label.padEnd(7)} state ${String(entries).padStart(6)} entries | ${pairs} pairs in ${seconds.toFixed(1)} s = ${(pairs / seconds).toFixed(2)} pairs/s | ` +
      `launch activity median ${quantile(times, 0.5).toFixed(0)} ms, p95 ${quantile(times, 0.95).toFixed(0)} ms (${times.length} launches) | ` +
      `stray check of one try: ${check.visited} entries visited in ${check.ms.toFixed(1)} ms (the old walk: ${entries} entries)`,
  );
}

console.log(
  `launch cost against the worker's state: ${notes.length} notes, pair grouping, concurrency ${concurrency}, instant fake harness, ${earlier} earlier sweeps`,
);
await worker.runUntil(async () => {
  await sweep('GS-bench-growth-warmup'); // the worker and the server warm up; its state stays
  await measured('before');
  const started = performance.now();
  for (let index = 0; index < earlier; index += 1) await sweep(`GS-bench-growth-earlier-${String(index).padStart(2, '0')}`);
  console.log(`        (${earlier} earlier sweeps in ${((performance.now() - started) / 1000).toFixed(0)} s)`);
  await measured('after');
});
// The control: the same sweep right after, under the same machine load, on a fresh state and worker.
const controlState = join(dir, 'control-state');
const control = await testWorker(env, { stateDir: controlState });
await control.runUntil(async () => {
  await sweep('GS-bench-growth-control-warmup');
  await measured('control', controlState);
});
await env.teardown();
