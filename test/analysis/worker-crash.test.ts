import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AnalysisResult } from '../../src/analysis/progress.js';
import { startFaultWorker } from '../helpers/faults.js';
import { readLedger, waitFor } from '../helpers/fake.js';
import { testWorker } from '../helpers/temporal.js';
import { analysisInput, member, prepareToy, ROLES, scratch, startAnalysis, startsByRole, toyCheckout, toyProfiles, toyScenario, writes } from './helpers.js';
import { useDevServer } from '../helpers/servers.js';

// The kill is real (a worker process of its own, SIGKILL, on the dev server); only the waits it brings shrink: the
// file's runs are on a clock ten times quicker than the shipped one (test/helpers/scaled-clock.ts), so the dead
// worker's launch heartbeat timeout and the relaunch rule's wait pass quickly. test/harness/relaunch.test.ts proves
// the shipped numbers on the time-skipping server.
const { env, address } = useDevServer({ quickerClock: 10 });

test('a worker killed mid-cascade and replaced: the run completes, the running try is adopted, and no launch is asked again', async () => {
  const checkout = await toyCheckout();
  const prepared = await prepareToy(checkout);
  const dir = await scratch();
  const release = join(dir, 'release');
  const runtimeRule = ROLES.indexOf('runtime-report');
  const { env: fakeEnv, ledger } = await toyScenario(dir, prepared, (clean) => {
    const corrected = clean['runtime-report'].replace('reads its input once (SRC-2)', 'reads in.txt whole (SRC-2)');
    return {
      'report-verification': [
        writes('report-verification', member.verification(prepared.runId, ['runtime-report: src/main.ts reads the whole file'])),
        writes('report-verification', clean['report-verification']),
      ],
      // The correction's first try outlives the worker that started it (held until the worker is killed); the next worker adopts it.
      'runtime-report': [
        writes('runtime-report', clean['runtime-report']),
        writes('runtime-report', corrected, { waitForFile: release }),
        writes('runtime-report', corrected),
      ],
      reconciliation: [writes('reconciliation', clean.reconciliation), writes('reconciliation', clean.reconciliation)],
    };
  });
  const input = analysisInput(prepared, await toyProfiles(dir), fakeEnv);

  // The first worker is `commonplace worker` on the test bundle, a process of its own, so it can be killed outright.
  const first = startFaultWorker(undefined, { address: address(), state: join(dir, 'state-1') });
  const handle = await startAnalysis(env(), input);
  await waitFor(
    'the correction of the runtime report to start',
    async () => (await readLedger(ledger)).some((entry) => entry.event === 'start' && entry.rule === runtimeRule && entry.attempt === 1),
    120_000,
  );
  const beforeKill = await readLedger(ledger);
  first.kill('SIGKILL');
  await first;
  await writeFile(release, '');

  const second = await testWorker(env(), { stateDir: join(dir, 'state-2') });
  const outcome = (await second.runUntil(handle.result())) as AnalysisResult;
  expect(outcome.status).toBe('completed');

  const entries = await readLedger(ledger);
  const completedBefore = beforeKill.filter((entry) => entry.event === 'end' && entry.exitCode === 0);
  expect(completedBefore.map((entry) => ROLES[entry.rule])).toEqual(
    expect.arrayContaining(['boundary', 'runtime-report', 'lens-control', 'lens-memory', 'lens-learning', 'reconciliation', 'report-verification']),
  );
  expect(completedBefore).toHaveLength(7);
  // Every launch that had ended before the kill ran exactly once: none of those (rule, attempt) pairs started again.
  const startsAfter = entries.slice(beforeKill.length).filter((entry) => entry.event === 'start');
  expect(startsAfter.filter((entry) => completedBefore.some((done) => done.rule === entry.rule && done.attempt === entry.attempt))).toEqual([]);
  // The try the killed worker started ran to its end and was adopted: it was not launched again.
  expect(entries.filter((entry) => entry.event === 'end' && entry.rule === runtimeRule).map((entry) => entry.attempt)).toEqual([0, 1]);
  const starts = await startsByRole(ledger);
  expect(Object.fromEntries(ROLES.map((role) => [role, starts[role].length]))).toEqual(
    Object.fromEntries(ROLES.map((role) => [role, role === 'runtime-report' ? 2 : ['reconciliation', 'report-verification'].includes(role) ? 2 : 1])),
  );
  const runtime = outcome.progress.attempts.filter((attempt) => attempt.role === 'runtime-report');
  expect(runtime.map((attempt) => [attempt.attempt, attempt.kind, attempt.outcome])).toEqual([
    [1, 'write', 'accepted'],
    [2, 'correction', 'accepted'],
  ]);
});
