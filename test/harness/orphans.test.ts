/**
 * No orphaned tries (issue 26, item 10): a try outlives its attempt on purpose, so that the next
 * attempt adopts it, but never its run. A run that closes while its try runs ends the try, and a
 * worker that starts ends the tries of runs that closed while no worker watched them.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { TASK_QUEUE } from '../../src/search-attributes.js';
import { startCli } from '../helpers/cli.js';
import { fakeScenario, readLedger, scratch, waitFor } from '../helpers/fake.js';
import { expectNoHarnessLeft, harnessesLeft } from '../helpers/harness-processes.js';
import { fakeProfilesFile, probeInput } from '../helpers/probe.js';
import { useDevServer } from '../helpers/servers.js';
import { testWorker, uniqueId } from '../helpers/temporal.js';

const { env, address } = useDevServer();

async function hangingProbe(name: string) {
  const dir = await scratch();
  const { env: fakeEnv, ledger } = await fakeScenario(dir, [{ attempts: [{ hang: true }] }]);
  const profiles = await fakeProfilesFile(dir, { fake: { harness: 'fake', timeout: '30m' } });
  const workflowId = uniqueId(`probe/${name}`);
  const start = () => env().client.workflow.start('probe', { taskQueue: TASK_QUEUE, workflowId, args: [probeInput(workflowId, 'fake', profiles, fakeEnv)] });
  const hanging = () => waitFor('the try to hang', async () => (await readLedger(ledger)).some((entry) => entry.event === 'hang'), 60_000);
  return { dir, ledger, start, hanging };
}

test('a run terminated while its launch runs (no cancellation reaches the launch) ends its try: the harness does not outlive the run', async () => {
  const { dir, ledger, start, hanging } = await hangingProbe('terminated');
  const worker = await testWorker(env(), { stateDir: join(dir, 'state') });
  await worker.runUntil(async () => {
    const handle = await start();
    await hanging();
    await handle.terminate('the test ends the run');
    // The launch's next heartbeat is answered "not found"; the server says the run has closed, so the try is ended.
    await expectNoHarnessLeft(ledger);
  });
});

test('a worker that starts ends the tries of runs that closed while no worker watched them, and lists none of them after', async () => {
  const { dir, ledger, start, hanging } = await hangingProbe('reaped');
  const state = join(dir, 'state');
  const first = startCli(['worker', '--state', state], { env: { TEMPORAL_ADDRESS: address() } });
  const handle = await start();
  await hanging();
  first.kill('SIGKILL');
  await first;
  await handle.terminate('closed while no worker watches its try');
  expect(await harnessesLeft(ledger)).not.toEqual([]); // the try outlived its worker, as it should while its run is open

  const second = await testWorker(env(), { stateDir: state });
  await second.runUntil(async () => {
    await expectNoHarnessLeft(ledger);
    expect(await readdir(join(state, 'tries'))).toEqual([]);
  });
});
