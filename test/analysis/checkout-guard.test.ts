import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { AnalysisProgress, AnalysisResult } from '../../src/analysis/progress.js';
import { readLedger } from '../helpers/fake.js';
import { useDevServerWithCliWorker } from '../helpers/servers.js';
import { analysisInput, prepareToy, progressUntil, ROLES, scratch, startAnalysis, toyCheckout, toyProfiles, toyScenario, writes } from './helpers.js';

const { env } = useDevServerWithCliWorker();

describe('an analysis worker that writes into the main checkout', () => {
  let stoppedAt: AnalysisProgress;
  let outcome: AnalysisResult;
  let runtimeLaunches: number;
  beforeAll(async () => {
    const checkout = await toyCheckout();
    const prepared = await prepareToy(checkout);
    const dir = await scratch();
    const stray = join(prepared.parameters.checkout, 'kb', 'notes', 'written-by-a-worker.md');
    const { env: fakeEnv, ledger } = await toyScenario(dir, prepared, (clean) => ({
      'runtime-report': [
        writes('runtime-report', clean['runtime-report'], { writeOutside: { [stray]: 'a worker wrote this\n' } }),
        writes('runtime-report', clean['runtime-report']),
      ],
    }));
    const handle = await startAnalysis(env(), analysisInput(prepared, await toyProfiles(dir), fakeEnv));
    stoppedAt = await progressUntil(handle, (progress) => progress.status === 'stopped');
    await rm(stray);
    await handle.executeUpdate('resume');
    outcome = (await handle.result()) as AnalysisResult;
    runtimeLaunches = (await readLedger(ledger)).filter((entry) => entry.event === 'start' && entry.rule === ROLES.indexOf('runtime-report')).length;
  });

  test('stops the run naming the path and the launch that ran when it changed', () => {
    expect(stoppedAt.stops.map((stop) => [stop.kind, stop.disposition])).toEqual([['environment-changed', 'inspect']]);
    expect(stoppedAt.stops[0]?.reason).toMatch(
      /^the main checkout changed while runtime-report attempt 1 ran \(launch analysis\/\S+\/runtime-report\/1\): kb\/notes\/written-by-a-worker\.md/,
    );
  });

  test('does not have its answer accepted: once the checkout is restored and the run resumed, the role is asked again', () => {
    expect(outcome.status).toBe('completed');
    expect(runtimeLaunches).toBe(2);
    const attempts = outcome.progress.attempts.filter((attempt) => attempt.role === 'runtime-report');
    expect(attempts.map((attempt) => attempt.outcome)).toEqual(['rejected', 'accepted']);
    expect(attempts[0]?.findings[0]?.rule).toBe('stray-write');
  });
});
