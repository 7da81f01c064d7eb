import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { TASK_QUEUE } from '../../src/search-attributes.js';
import type { ProbeResult } from '../../src/workflows/probe.js';
import { ledgerStarts, fakeScenario, readLedger, scratch, waitFor, type FakeAttempt } from '../helpers/fake.js';
import { startFaultWorker, type Fault } from '../helpers/faults.js';
import { fakeProfilesFile, probeInput } from '../helpers/probe.js';
import { scaledClockMemo } from '../helpers/scaled-clock.js';
import { testWorker, uniqueId } from '../helpers/temporal.js';
import { useDevServerRooms } from '../helpers/servers.js';

// Each test runs in a namespace of its own, all at once: most of a test is waiting for the server to notice the death.
const { room } = useDevServerRooms();

// The kill is real (a worker process of its own, SIGKILL) and so is the dev server; only the waits it
// brings shrink: each run asks for a clock a tenth of the shipped one (test/helpers/scaled-clock.ts), so
// the dead worker's launch heartbeat timeout (15 s, here 5 s) and the relaunch rule's 30 s (here 3 s)
// pass quickly. The shipped numbers are proved on the time-skipping server by test/harness/relaunch.test.ts.
const quick = { memo: scaledClockMemo(0.1) };

/**
 * A probe of the fake profile in a namespace of its own, begun by a worker process (the worker `commonplace worker`
 * builds, on the test bundle) that the fault kills, or that the test kills itself when there is no fault; `rest`
 * runs the probe on to its end on a worker of the test's, with the same state directory.
 */
async function crashedProbe(name: string, fault: Fault | undefined, first: FakeAttempt) {
  const { env, address, namespace } = await room();
  const dir = await scratch();
  const { env: fakeEnv, ledger } = await fakeScenario(dir, [{ attempts: [first, { writeDeclared: 'a second launch\n' }] }]);
  const profiles = await fakeProfilesFile(dir, { fake: { harness: 'fake', timeout: '5m' } });
  const workflowId = uniqueId(`probe/${name}`);
  const worker = startFaultWorker(fault, { address, namespace, state: join(dir, 'state') });
  const handle = await env.client.workflow.start('probe', {
    taskQueue: TASK_QUEUE,
    workflowId,
    args: [probeInput(workflowId, 'fake', profiles, fakeEnv)],
    ...quick,
  });
  const rest = async (then: () => Promise<void> = async () => undefined) =>
    (await testWorker(env, { stateDir: join(dir, 'state') })).runUntil(async () => {
      await then();
      return (await handle.result()) as ProbeResult;
    });
  return { dir, ledger, worker, rest };
}

const starts = async (ledger: string) => (await ledgerStarts(ledger)).map((entry) => entry.attempt);

test.concurrent('a worker killed while a launch runs: the next worker adopts the running try, which is not launched again', async () => {
  const release = join(await scratch(), 'release');
  const { dir, ledger, worker, rest } = await crashedProbe('crash', undefined, { waitForFile: release, writeDeclared: 'probe ok\n' });
  await waitFor('the first try to start', async () => (await starts(ledger)).length > 0, 60_000);
  worker.kill('SIGKILL');
  await worker;

  // The try outlived its worker; released once the next worker runs, it ends and is adopted.
  const result = await rest(() => writeFile(release, ''));
  expect(result.outcome).toMatchObject({ status: 'completed', result: { try: 1 } });
  expect(await starts(ledger)).toEqual([0]);
  expect((await readLedger(ledger)).filter((entry) => entry.event === 'end').map((entry) => entry.attempt)).toEqual([0]);
  // The probe's directory is under the launching worker's state (`<state>/…`): here both workers share one.
  expect(result.dir).toMatch(/^<state>\/probes\//);
  const logDir = result.outcome.status === 'completed' ? result.outcome.result.logDir : '';
  const tryLog = JSON.parse(await readFile(join(result.dir.replace('<state>', join(dir, 'state')), logDir, 'try.json'), 'utf8')) as { adoptedBy?: number };
  expect(tryLog.adoptedBy).toBeGreaterThan(1);
});

test.concurrent('a worker killed after its launch ended but before reporting it: the next worker reports the ended try, not a new launch', async () => {
  // The first worker kills itself once the try has ended, before reading or reporting it.
  const { ledger, worker, rest } = await crashedProbe('crash-ended', { do: 'kill', at: 'try-ended' }, { writeDeclared: 'probe ok\n' });
  expect((await worker).signal).toBe('SIGKILL');
  expect((await readLedger(ledger)).filter((entry) => entry.event === 'end')).toHaveLength(1);
  expect((await rest()).outcome).toMatchObject({ status: 'completed', result: { try: 1 } });
  expect(await starts(ledger)).toHaveLength(1);
});

test.concurrent('a worker killed after starting a try but before recording it: that try never runs the harness, and the prompt is launched once', async () => {
  // The first worker dies right after spawning the try's wrapper, before `.launch/current.json` is written.
  const { ledger, worker, rest } = await crashedProbe('crash-unrecorded', { do: 'kill', at: 'try-spawned' }, { writeDeclared: 'probe ok\n' });
  expect((await worker).signal).toBe('SIGKILL');
  expect((await rest()).outcome).toMatchObject({ status: 'completed', result: { try: 2 } });
  expect(await starts(ledger)).toHaveLength(1);
});
