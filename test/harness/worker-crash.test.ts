import { join } from 'node:path';
import { TASK_QUEUE } from '../../src/search-attributes.js';
import type { ProbeResult } from '../../src/workflows/probe.js';
import { startCli } from '../helpers/cli.js';
import { fakeScenario, readLedger, scratch, waitFor } from '../helpers/fake.js';
import { fakeProfilesFile, probeInput } from '../helpers/probe.js';
import { testWorker, uniqueId } from '../helpers/temporal.js';
import { useDevServer } from '../helpers/servers.js';

const { env, address } = useDevServer();

test('a worker killed while a launch runs: the launch is retried on the next worker and the workflow completes', async () => {
  const dir = await scratch();
  const { env: fakeEnv, ledger } = await fakeScenario(dir, [{ attempts: [{ delayMs: 60_000, writeDeclared: 'too late\n' }, { writeDeclared: 'probe ok\n' }] }]);
  const profiles = await fakeProfilesFile(dir, { fake: { harness: 'fake', timeout: '5m' } });
  const workflowId = uniqueId('probe/crash');

  // The first worker is a separate process (the real `commonplace worker`), so it can be killed outright.
  const first = startCli(['worker', '--state', join(dir, 'state')], { env: { TEMPORAL_ADDRESS: address() } });
  const handle = await env().client.workflow.start('probe', { taskQueue: TASK_QUEUE, workflowId, args: [probeInput(workflowId, 'fake', profiles, fakeEnv)] });
  await waitFor('the first try to start', async () => (await readLedger(ledger)).some((entry) => entry.event === 'start'), 60_000);
  first.kill('SIGKILL');
  await first;

  const second = await testWorker(env(), { stateDir: join(dir, 'state') });
  const result = (await second.runUntil(handle.result())) as ProbeResult;
  expect(result.outcome.status).toBe('completed');
  if (result.outcome.status !== 'completed') return;
  expect(result.outcome.result.try).toBe(2);
  const starts = (await readLedger(ledger)).filter((entry) => entry.event === 'start');
  expect(starts.map((entry) => entry.attempt)).toEqual([0, 1]);
  // The orphaned first try was ended before the second ran: it never finished.
  expect((await readLedger(ledger)).filter((entry) => entry.event === 'end').map((entry) => entry.attempt)).toEqual([1]);
});
