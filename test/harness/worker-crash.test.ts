import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { TASK_QUEUE } from '../../src/search-attributes.js';
import type { ProbeResult } from '../../src/workflows/probe.js';
import { fakeScenario, readLedger, scratch, waitFor } from '../helpers/fake.js';
import { startFaultWorker } from '../helpers/faults.js';
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

test.concurrent('a worker killed while a launch runs: the next worker adopts the running try, which is not launched again', async () => {
  const { env, address, namespace } = await room();
  const dir = await scratch();
  const release = join(dir, 'release');
  const { env: fakeEnv, ledger } = await fakeScenario(dir, [
    { attempts: [{ waitForFile: release, writeDeclared: 'probe ok\n' }, { writeDeclared: 'a second launch\n' }] },
  ]);
  const profiles = await fakeProfilesFile(dir, { fake: { harness: 'fake', timeout: '5m' } });
  const workflowId = uniqueId('probe/crash');

  // The first worker is a separate process (the worker `commonplace worker` builds, on the test bundle), so it can be killed outright.
  const first = startFaultWorker(undefined, { address, namespace, state: join(dir, 'state') });
  const handle = await env.client.workflow.start('probe', {
    taskQueue: TASK_QUEUE,
    workflowId,
    args: [probeInput(workflowId, 'fake', profiles, fakeEnv)],
    ...quick,
  });
  await waitFor('the first try to start', async () => (await readLedger(ledger)).some((entry) => entry.event === 'start'), 60_000);
  first.kill('SIGKILL');
  await first;

  const second = await testWorker(env, { stateDir: join(dir, 'state') });
  const result = (await second.runUntil(async () => {
    // The try outlived its worker; released once the next worker runs, it ends and is adopted.
    await writeFile(release, '');
    return handle.result();
  })) as ProbeResult;
  expect(result.outcome.status).toBe('completed');
  if (result.outcome.status !== 'completed') return;
  expect(result.outcome.result.try).toBe(1);
  const entries = await readLedger(ledger);
  expect(entries.filter((entry) => entry.event === 'start').map((entry) => entry.attempt)).toEqual([0]);
  expect(entries.filter((entry) => entry.event === 'end').map((entry) => entry.attempt)).toEqual([0]);
  // The probe's directory is under the launching worker's state (`<state>/…`): here both workers share one.
  expect(result.dir).toMatch(/^<state>\/probes\//);
  const tryLog = JSON.parse(await readFile(join(result.dir.replace('<state>', join(dir, 'state')), result.outcome.result.logDir, 'try.json'), 'utf8')) as {
    adoptedBy?: number;
  };
  expect(tryLog.adoptedBy).toBeGreaterThan(1);
});

test.concurrent('a worker killed after its launch ended but before reporting it: the next worker reports the ended try, not a new launch', async () => {
  const { env, address, namespace } = await room();
  const dir = await scratch();
  const { env: fakeEnv, ledger } = await fakeScenario(dir, [{ attempts: [{ writeDeclared: 'probe ok\n' }, { writeDeclared: 'a second launch\n' }] }]);
  const profiles = await fakeProfilesFile(dir, { fake: { harness: 'fake', timeout: '5m' } });
  const workflowId = uniqueId('probe/crash-ended');
  // The first worker is a separate process that kills itself once the try has ended, before reading or reporting it.
  const first = startFaultWorker({ do: 'kill', at: 'try-ended' }, { address, namespace, state: join(dir, 'state') });
  const handle = await env.client.workflow.start('probe', {
    taskQueue: TASK_QUEUE,
    workflowId,
    args: [probeInput(workflowId, 'fake', profiles, fakeEnv)],
    ...quick,
  });
  expect((await first).signal).toBe('SIGKILL');
  expect((await readLedger(ledger)).filter((entry) => entry.event === 'end')).toHaveLength(1);

  const second = await testWorker(env, { stateDir: join(dir, 'state') });
  const result = (await second.runUntil(handle.result())) as ProbeResult;
  expect(result.outcome.status).toBe('completed');
  if (result.outcome.status !== 'completed') return;
  expect(result.outcome.result.try).toBe(1);
  expect((await readLedger(ledger)).filter((entry) => entry.event === 'start')).toHaveLength(1);
});

test.concurrent('a worker killed after starting a try but before recording it: that try never runs the harness, and the prompt is launched once', async () => {
  const { env, address, namespace } = await room();
  const dir = await scratch();
  const { env: fakeEnv, ledger } = await fakeScenario(dir, [{ attempts: [{ writeDeclared: 'probe ok\n' }, { writeDeclared: 'a second launch\n' }] }]);
  const profiles = await fakeProfilesFile(dir, { fake: { harness: 'fake', timeout: '5m' } });
  const workflowId = uniqueId('probe/crash-unrecorded');
  // The first worker dies right after spawning the try's wrapper, before `.launch/current.json` is written.
  const first = startFaultWorker({ do: 'kill', at: 'try-spawned' }, { address, namespace, state: join(dir, 'state') });
  const handle = await env.client.workflow.start('probe', {
    taskQueue: TASK_QUEUE,
    workflowId,
    args: [probeInput(workflowId, 'fake', profiles, fakeEnv)],
    ...quick,
  });
  expect((await first).signal).toBe('SIGKILL');

  const second = await testWorker(env, { stateDir: join(dir, 'state') });
  const result = (await second.runUntil(handle.result())) as ProbeResult;
  expect(result.outcome.status).toBe('completed');
  if (result.outcome.status !== 'completed') return;
  expect(result.outcome.result.try).toBe(2);
  expect((await readLedger(ledger)).filter((entry) => entry.event === 'start')).toHaveLength(1);
});
