// A compare run whose worker is killed (SIGKILL) while a launch of its second route is held open, and
// a new worker takes the run over: no pair answered before the kill, under either route, is launched again.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CompareSummary } from '../../src/review/compare/run-types.js';
import { TASK_QUEUE } from '../../src/search-attributes.js';
import { compareRun } from '../../src/workflows/compare.js';
import { startFaultWorker } from '../helpers/faults.js';
import { readLedger, scratch, waitFor, type LedgerEntry } from '../helpers/fake.js';
import { useDevServer } from '../helpers/servers.js';
import { uniqueId } from '../helpers/temporal.js';
import { compareFixture, DISPUTED, readRouteVerdicts, readSample, starts } from './helpers.js';

// The kill is real (a worker process of its own, SIGKILL, on the dev server); only the waits it brings shrink: the
// file's runs are on a clock ten times quicker than the shipped one (test/helpers/scaled-clock.ts), so the dead
// worker's heartbeat timeout and the retry after it pass quickly. test/harness/relaunch.test.ts proves the shipped
// numbers on the time-skipping server.
const { env, address } = useDevServer({ quickerClock: 10 });

/** A worker process as `commonplace worker --kb <checkout>` builds it, on the test run's bundle (which carries the scaled clock). */
const worker = (checkout: string, state: string) => startFaultWorker(undefined, { address: address(), kb: [checkout], state });

/** The starts after the kill that repeat a prompt answered before it. */
function repeatedAfter(before: LedgerEntry[], all: LedgerEntry[]): LedgerEntry[] {
  const answered = before.filter((entry) => entry.event === 'end' && entry.exitCode === 0);
  const startedBefore = before.filter((entry) => entry.event === 'start' && answered.some((done) => done.pid === entry.pid));
  return all.slice(before.length).filter((entry) => entry.event === 'start' && startedBefore.some((done) => done.promptSha256 === entry.promptSha256));
}

/** How many launch activities the compare run's batches record as completed (their histories, found through the run's). */
async function completedLaunches(workflowId: string): Promise<number> {
  const history = async (id: string) =>
    (
      await env()
        .client.workflow.getHandle(id)
        .fetchHistory()
        .catch(() => undefined)
    )?.events ?? [];
  const children = (await history(workflowId)).flatMap((event) => event.childWorkflowExecutionStartedEventAttributes?.workflowExecution?.workflowId ?? []);
  let completed = 0;
  for (const child of children) {
    const events = await history(child);
    const launches = new Set(
      events.filter((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'launch').map((event) => String(event.eventId)),
    );
    completed += events.filter((event) => launches.has(String(event.activityTaskCompletedEventAttributes?.scheduledEventId))).length;
  }
  return completed;
}

test('a compare run whose worker is killed while its second route asks and is replaced launches nothing answered before the kill again', async () => {
  const dir = await scratch();
  const release = join(dir, 'release');
  // The strict route's launches on the disputed gate are held open until the first worker is gone; the others are answered at once.
  const fixture = await compareFixture({
    strict: [{ match: `^criterion = ${DISPUTED}$`, attempts: [{ review: 'fail', waitForFile: release }] }, { attempts: [{ review: 'pass' }] }],
  });
  const runId = uniqueId('CMP').replace(/\//g, '-');
  const first = worker(fixture.checkout, join(dir, 'state-1'));
  const handle = await env().client.workflow.start(compareRun, { taskQueue: TASK_QUEUE, workflowId: `compare/${runId}`, args: [fixture.input(runId)] });
  await waitFor(
    "the lenient route's answers and a held launch of the strict route",
    async () => {
      const strict = await readLedger(fixture.ledgers.strict);
      return (
        strict.some((entry) => entry.event === 'start' && entry.rule === 0) &&
        strict.some((entry) => entry.event === 'end' && entry.rule === 1 && entry.exitCode === 0)
      );
    },
    180_000,
  );
  const lenientBefore = await readLedger(fixture.ledgers.lenient);
  const strictBefore = await readLedger(fixture.ledgers.strict);
  // An answer counts as given before the kill once the server has it: every launch the snapshot saw end is recorded
  // complete (a harness may end a moment before its worker reports it; one that ends after the snapshot is in flight).
  const ended = [...lenientBefore, ...strictBefore].filter((entry) => entry.event === 'end').length;
  await waitFor(`the ${ended} launches ended before the kill recorded complete`, async () => (await completedLaunches(`compare/${runId}`)) >= ended, 120_000);
  first.kill('SIGKILL');
  await first;
  await writeFile(release, '');

  const second = worker(fixture.checkout, join(dir, 'state-2'));
  let summary: CompareSummary;
  try {
    summary = await handle.result();
  } finally {
    second.kill('SIGINT');
    await second;
  }
  expect(summary.status).toBe('completed');
  const sample = await readSample(fixture.checkout, runId);
  expect(await starts(fixture.ledgers.lenient)).toHaveLength(sample.size);
  expect(repeatedAfter(lenientBefore, await readLedger(fixture.ledgers.lenient))).toEqual([]);
  expect(repeatedAfter(strictBefore, await readLedger(fixture.ledgers.strict))).toEqual([]);
  const strict = await readRouteVerdicts(fixture.checkout, runId, 'strict_pair.jsonl');
  expect(strict).toHaveLength(sample.size);
  expect(strict.filter((verdict) => verdict.verdict === 'fail').map((verdict) => verdict.criterion)).toEqual(
    sample.pairs.filter((pair) => pair.criterion === DISPUTED).map((pair) => pair.criterion),
  );
});
