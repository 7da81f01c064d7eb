// A worker that picks a run up mid-way (its worker was killed and replaced) asserts the environment
// before its first launch or check of the run: a HEAD moved while no worker watched stops the run with
// environment-changed, which a resume continues once it is restored.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AnalysisProgress, AnalysisResult } from '../../src/analysis/progress.js';
import { startFaultWorker } from '../helpers/faults.js';
import { readLedger, waitFor } from '../helpers/fake.js';
import { useDevServer } from '../helpers/servers.js';
import { testWorker } from '../helpers/temporal.js';
import { analysisInput, git, prepareToy, progressUntil, ROLES, scratch, startAnalysis, toyCheckout, toyProfiles, toyScenario, writes } from './helpers.js';

// The kill is real (a worker process of its own, SIGKILL, on the dev server); only the waits it brings shrink: the
// file's runs are on a clock ten times quicker than the shipped one (test/helpers/scaled-clock.ts), so the dead
// worker's launch heartbeat timeout and the relaunch rule's wait pass quickly. test/harness/relaunch.test.ts proves
// the shipped numbers on the time-skipping server.
const { env, address } = useDevServer({ quickerClock: 10 });

test('a replaced worker finds the HEAD moved while no worker watched: the run stops with environment-changed mid-way, and resumes once restored', async () => {
  const checkout = await toyCheckout();
  const prepared = await prepareToy(checkout);
  const dir = await scratch();
  const release = join(dir, 'release');
  const { env: fakeEnv, ledger } = await toyScenario(dir, prepared, (clean) => ({ boundary: [writes('boundary', clean.boundary, { waitForFile: release })] }));
  const input = analysisInput(prepared, await toyProfiles(dir), fakeEnv);

  // The first worker is `commonplace worker` on the test bundle, a process of its own, so it can be killed outright while the boundary's launch runs.
  const first = startFaultWorker(undefined, { address: address(), state: join(dir, 'state-1') });
  const handle = await startAnalysis(env(), input);
  await waitFor(
    'the boundary launch to start',
    async () => (await readLedger(ledger)).some((entry) => entry.event === 'start' && entry.rule === ROLES.indexOf('boundary')),
    120_000,
  );
  const running = await handle.query<AnalysisProgress>('progress');
  expect(running.status).toBe('running');
  first.kill('SIGKILL');
  await first.catch(() => undefined);

  // While no worker watches, the run's worktree gets a commit; then the held launch ends.
  await git(prepared.worktree, 'commit', '--quiet', '--allow-empty', '-m', 'a commit made while the run had no worker');
  await writeFile(release, '');

  const second = await testWorker(env(), { stateDir: join(dir, 'state-2') });
  const outcome = (await second.runUntil(async () => {
    const stopped = await progressUntil(handle, (progress) => progress.status === 'stopped', 180_000);
    expect(stopped.stops.map((stop) => stop.kind)).toEqual(['environment-changed']);
    expect(stopped.stops[0]?.reason).toMatch(
      /^a worker picking the run up found the environment changed: HEAD of .* is [0-9a-f]{40}, but the run was prepared at/,
    );
    // Mid-way: the boundary's launch had run (and is kept), not a stop at the run's start.
    expect((await readLedger(ledger)).filter((entry) => entry.event === 'end' && entry.rule === ROLES.indexOf('boundary'))).toHaveLength(1);

    await git(prepared.worktree, 'reset', '--quiet', '--hard', prepared.parameters.preparationCommit);
    await handle.executeUpdate('resume');
    return (await handle.result()) as AnalysisResult;
  })) as AnalysisResult;
  expect(outcome.status).toBe('completed');
  // The boundary was launched once: its answer, which ended while no worker ran, was adopted, not asked again.
  expect((await readLedger(ledger)).filter((entry) => entry.event === 'start' && entry.rule === ROLES.indexOf('boundary'))).toHaveLength(1);
});
