// One ask, keyed run-wide, under a killed worker: the worker running a sweep, a full pass or a revision is killed
// (SIGKILL) while a launch is held open, a new worker takes the run over, and no ask that was answered
// before the kill is launched again. A model-API sweep's worker dies mid-sweep right after recording an answer:
// only the requests in flight at its end are asked again, counted at the API's stand-in.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { selectPairs } from '../../src/review/status.js';
import type { SweepInput, SweepSummary } from '../../src/review/sweep-types.js';
import { startFaultWorker } from '../helpers/faults.js';
import { fakeScenario, readLedger, scratch, waitFor, type LedgerEntry } from '../helpers/fake.js';
import { corpusCopy, someNotes } from '../helpers/kb.js';
import { requestedCriteria, reply } from '../helpers/model-apis/replies.js';
import { startStandIn, type RecordedRequest } from '../helpers/model-apis/stand-in.js';
import { useDevServerRooms, type Room } from '../helpers/servers.js';
import { fakeSweep, startSweep, sweepRunId } from '../helpers/sweep.js';
import { cliOn, gatesOf, gitCorpus, launches, NOTE, noteText, reviewsPass } from '../review-edit/helpers.js';

// The kills are real (a worker process of its own, SIGKILL, on the dev server); only the waits they bring
// shrink: every run in the file's namespace (the CLI starts two of them) runs on a clock ten times quicker than the
// shipped one (test/helpers/scaled-clock.ts), so the dead worker's launch heartbeat timeout (15 s, here 5 s) and the
// relaunch rule's 30 s (here 3 s) pass quickly. The shipped numbers are proved on the time-skipping server by
// test/harness/relaunch.test.ts. Each test runs in a namespace of its own, all at once: most of a test is waiting.
const { room } = useDevServerRooms({ quickerClock: 10 });

/** A worker process as `commonplace worker --kb <checkout>` builds it, on the test run's bundle (which carries the scaled clock). */
const worker = ({ address, namespace }: Room, checkout: string, state: string) => startFaultWorker(undefined, { address, namespace, kb: [checkout], state });

/** The launches that ended with an answer before the kill, and the starts after it that repeat one of them. */
function repeatedAfter(before: LedgerEntry[], all: LedgerEntry[]): LedgerEntry[] {
  const answered = before.filter((entry) => entry.event === 'end' && entry.exitCode === 0);
  const startedBefore = before.filter((entry) => entry.event === 'start' && answered.some((done) => done.pid === entry.pid));
  return all.slice(before.length).filter((entry) => entry.event === 'start' && startedBefore.some((done) => done.promptSha256 === entry.promptSha256));
}

/** How many launch activities the workflow's history records as completed. */
async function completedLaunches({ env }: Room, workflowId: string): Promise<number> {
  const events =
    (
      await env.client.workflow
        .getHandle(workflowId)
        .fetchHistory()
        .catch(() => undefined)
    )?.events ?? [];
  const launchIds = new Set(
    events.filter((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'launch').map((event) => String(event.eventId)),
  );
  return events.filter((event) => launchIds.has(String(event.activityTaskCompletedEventAttributes?.scheduledEventId))).length;
}

test.concurrent('a gate sweep whose worker is killed mid-batch and replaced launches no pair answered before the kill again', async () => {
  const here = await room();
  // The second note's launch is held open until the first worker is gone; the first note's is answered at once.
  const sweep = await fakeSweep(
    ({ notes, release }) => [{ match: `^note = ${notes[1]}$`, attempts: [{ review: 'pass', waitForFile: release }] }, { attempts: [{ review: 'pass' }] }],
    { notes: 2, gates: ['frontmatter/description-discrimination'], profiles: { fake: { harness: 'fake', timeout: '2m', attempts: 3 } } },
  );
  const { checkout, dir, ledger } = sweep;
  const input = sweep.input({ concurrency: 2, batchSize: 5 });
  const first = worker(here, checkout, join(dir, 'state-1'));
  const handle = await startSweep(here.env, input);
  await waitFor(
    "the first note's answer and the second note's held launch",
    async () => {
      const entries = await readLedger(ledger);
      return (
        entries.some((entry) => entry.event === 'end' && entry.rule === 1 && entry.exitCode === 0) &&
        entries.some((entry) => entry.event === 'start' && entry.rule === 0)
      );
    },
    120_000,
  );
  // The answer counts once the server has it: the launch's completion in the batch's history (the
  // harness may have ended a moment before its worker reported it).
  await waitFor(
    "the first note's launch recorded complete in the batch",
    async () => (await completedLaunches(here, `gates/${input.runId}/batch-1`)) >= 1,
    120_000,
  );
  const before = await readLedger(ledger);
  first.kill('SIGKILL');
  await first;
  await sweep.releaseLaunch();

  const second = worker(here, checkout, join(dir, 'state-2'));
  try {
    const summary: SweepSummary = await handle.result();
    expect(summary.status).toBe('completed');
    expect(summary.counts.pairsDone).toBe(2);
  } finally {
    second.kill('SIGINT');
    await second;
  }
  const all = await readLedger(ledger);
  expect(all.filter((entry) => entry.event === 'start' && entry.rule === 1)).toHaveLength(1);
  expect(repeatedAfter(before, all)).toEqual([]);
});

test.concurrent('a full pass whose worker is killed while its editor runs and replaced launches no review again', async () => {
  const here = await room();
  const checkout = await gitCorpus();
  const dir = await scratch();
  const release = join(dir, 'release');
  const noEdit = { outputs: { 'edited.md': '', 'decision.md': 'The reviews found nothing to resolve.\n\nDecision: no-edit\n' } };
  const { scenario, ledger } = await fakeScenario(dir, [
    { match: '^job = edit$', attempts: [{ ...noEdit, waitForFile: release }, noEdit] },
    { attempts: [reviewsPass] },
  ]);
  const { lenses } = await gatesOf(checkout);

  const first = worker(here, checkout, join(dir, 'state-1'));
  const run = cliOn(checkout, here.address, ['review', 'run', 'full-pass', NOTE, '--profile', 'fake', '--scenario', scenario], here.namespace);
  await waitFor('the editor to start', async () => (await launches(ledger)).some((launch) => launch.job === 'edit'), 180_000);
  const before = await readLedger(ledger);
  const reviewsBefore = (await launches(ledger)).filter((launch) => launch.job === 'gate-review');
  expect(reviewsBefore).toHaveLength(lenses.length + 1);
  first.kill('SIGKILL');
  await first;
  await writeFile(release, '');

  const second = worker(here, checkout, join(dir, 'state-2'));
  try {
    const done = await run;
    expect(done.exitCode).toBe(0);
    expect(done.stdout).toMatch(/completed: no edit/);
  } finally {
    second.kill('SIGINT');
    await second;
  }
  expect((await launches(ledger)).filter((launch) => launch.job === 'gate-review')).toHaveLength(lenses.length + 1);
  expect(repeatedAfter(before, await readLedger(ledger))).toEqual([]);
});

test.concurrent('a revision whose worker is killed while its pass runs and replaced launches no assessment again', async () => {
  const here = await room();
  const checkout = await gitCorpus();
  const start = await noteText(checkout);
  const dir = await scratch();
  const release = join(dir, 'release');
  const tightened = start.replace('The convention is deliberately minimal', 'The convention is minimal');
  const { scenario, ledger } = await fakeScenario(dir, [
    { match: '^job = assess$', attempts: [{ outputs: { 'plan.yaml': 'passes:\n  - pass: tighten\n    reason: it says one thing twice\n' } }] },
    { match: '^job = revise$', attempts: [{ outputs: { 'edited.md': tightened }, waitForFile: release }, { outputs: { 'edited.md': tightened } }] },
  ]);

  const first = worker(here, checkout, join(dir, 'state-1'));
  const run = cliOn(checkout, here.address, ['review', 'run', 'revise', NOTE, '--assess', '--profile', 'fake', '--scenario', scenario], here.namespace);
  await waitFor('the pass to start', async () => (await launches(ledger)).some((launch) => launch.job === 'revise'), 180_000);
  const before = await readLedger(ledger);
  expect((await launches(ledger)).filter((launch) => launch.job === 'assess')).toHaveLength(1);
  first.kill('SIGKILL');
  await first;
  await writeFile(release, '');

  const second = worker(here, checkout, join(dir, 'state-2'));
  try {
    const stopped = await run;
    expect(stopped.exitCode).toBe(2);
    expect(stopped.stdout).toMatch(/waits for approval: awaiting-approval/);
  } finally {
    second.kill('SIGINT');
    await second;
  }
  expect((await launches(ledger)).filter((launch) => launch.job === 'assess')).toHaveLength(1);
  expect(repeatedAfter(before, await readLedger(ledger))).toEqual([]);
});

/** The pair a review request asks: its note's path and its criterion. */
function pairOf(request: RecordedRequest): string {
  const text = JSON.stringify(request.json ?? {});
  return `${/<note path=\\"([^"\\]+)\\"/.exec(text)?.[1] ?? '?'} × ${requestedCriteria(text).join(', ')}`;
}

/** The pairs whose answers a sweep's model-API units recorded in the run's answers (each names its launch, whose prompt says the pair). */
async function recordedPairs(checkout: string, runId: string): Promise<string[]> {
  const runDir = join(checkout, 'kb', 'reports', 'state', 'review', 'runs', runId);
  const pairs: string[] = [];
  for (const shard of await readdir(join(runDir, 'answers')).catch(() => [] as string[]))
    for (const file of await readdir(join(runDir, 'answers', shard)).catch(() => [] as string[])) {
      const { launch } = JSON.parse(await readFile(join(runDir, 'answers', shard, file), 'utf8')) as { launch: { launchId: string } };
      const [unit, attempt] = launch.launchId.split('/').slice(-2);
      const prompt = await readFile(join(runDir, 'launches', unit!, `attempt-${attempt}`, 'prompt.md'), 'utf8');
      const line = (name: string) =>
        prompt
          .split('\n')
          .find((entry) => entry.startsWith(`${name} = `))
          ?.slice(name.length + 3);
      pairs.push(`${line('note')} × ${line('criterion')}`);
    }
  return pairs;
}

test.concurrent(
  'a model-API sweep whose worker dies mid-sweep after recording an answer asks no answered pair again: only requests in flight at its end',
  async () => {
    const here = await room();
    const checkout = await corpusCopy();
    const dir = await scratch();
    const KEY_ENV = 'COMMONPLACE_TEST_KILL_API_KEY';
    const standIn = await startStandIn('anthropic', reply.review('pass'));
    const profilesFile = join(dir, 'worker-profiles.yaml');
    await writeFile(
      profilesFile,
      stringify({
        profiles: { api: { harness: 'anthropic', model: 'claude-haiku-4-5', 'base-url': standIn.url, 'api-key-env': KEY_ENV, timeout: '1m', attempts: 3 } },
      }),
    );
    const notes = await someNotes(2);
    const pairs = (await selectPairs(checkout, { notes, criteria: ['gates'] })).length;
    const concurrency = 6;
    const runId = sweepRunId('GS-API');
    const input: SweepInput = {
      checkout,
      runId,
      notes,
      gates: [],
      criteria: ['gates'],
      grouping: 'pair',
      profile: 'api',
      concurrency,
      batchSize: 100,
      autoResume: false,
      profilesFile,
    };
    const workerEnv = { [KEY_ENV]: 'stand-in-key' };
    // The worker kills itself (SIGKILL) right after recording its 12th answer, before reporting it.
    const first = startFaultWorker(
      { do: 'kill', at: 'answer-recorded', nth: 12 },
      { address: here.address, namespace: here.namespace, kb: [checkout], state: join(dir, 'state-1'), env: workerEnv },
    );
    const handle = await startSweep(here.env, input);
    try {
      const killed = await first;
      expect(killed.signal).toBe('SIGKILL');
      const requestsAtKill = standIn.requests.filter((request) => !request.side).length;
      const answeredAtKill = await recordedPairs(checkout, runId);
      expect(answeredAtKill.length).toBeGreaterThanOrEqual(12);

      const second = startFaultWorker(undefined, {
        address: here.address,
        namespace: here.namespace,
        kb: [checkout],
        state: join(dir, 'state-2'),
        env: workerEnv,
      });
      try {
        const summary: SweepSummary = await handle.result();
        expect(summary.status).toBe('completed');
        expect(summary.counts.pairsDone).toBe(pairs);
      } finally {
        second.kill('SIGINT');
        await second;
      }
      const asked = standIn.requests.filter((request) => !request.side);
      const times = new Map<string, number>();
      for (const request of asked) times.set(pairOf(request), (times.get(pairOf(request)) ?? 0) + 1);
      expect(times.size).toBe(pairs);
      const askedAgain = [...times].filter(([, count]) => count > 1).map(([pair]) => pair);
      // Every answer recorded before the worker died was asked once, the one it died reporting included.
      expect(answeredAtKill.filter((pair) => askedAgain.includes(pair))).toEqual([]);
      // What was asked again was asked before the kill and had no answer recorded: in flight, at most one a lane.
      const inFlightAtKill = new Set(
        asked
          .slice(0, requestsAtKill)
          .map(pairOf)
          .filter((pair) => !answeredAtKill.includes(pair)),
      );
      expect(askedAgain.filter((pair) => !inFlightAtKill.has(pair))).toEqual([]);
      expect(askedAgain.length).toBeLessThanOrEqual(concurrency);
    } finally {
      await standIn.close();
    }
  },
);
