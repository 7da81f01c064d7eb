// The breaker on a real sweep: a harness that answers every unit without a result line stops the sweep
// after the first ten units instead of paying for the whole selection, and a resume after the fix
// asks those ten again and completes.
import { writeFile } from 'node:fs/promises';
import { BREAKER_UNITS } from '../../src/review/breaker.js';
import type { SweepProgress, SweepSummary } from '../../src/review/sweep-types.js';
import { waitFor } from '../helpers/fake.js';
import { useDevServer } from '../helpers/servers.js';
import { fakeSweep, startSweep } from '../helpers/sweep.js';

const { env } = useDevServer();

const gates = ['frontmatter/*'];
const ATTEMPTS = 2;

test('a sweep whose harness never writes a result line stops as systematic-failure after ten units; resumed with a fixed scenario, it asks them again and completes', async () => {
  // An attempt with nothing scripted writes `fake output`: no result line, every time.
  const sweep = await fakeSweep([{ attempts: [{}] }], { notes: 4, gates, profiles: { fake: { harness: 'fake', timeout: '1m', attempts: ATTEMPTS } } });
  const pairs = await sweep.pairs();
  expect(pairs.length).toBeGreaterThan(BREAKER_UNITS + 2);
  const input = sweep.input({ concurrency: 2, batchSize: 100 });
  const starts = async () => (await sweep.starts()).length;

  await (
    await sweep.worker(env())
  ).runUntil(async () => {
    const handle = await startSweep(env(), input);
    let progress: SweepProgress | undefined;
    await waitFor('the sweep to stop', async () => (progress = await handle.query<SweepProgress>('progress')).status === 'stopped', 120_000);
    const stop = progress!.stops[0]!;
    expect(stop).toMatchObject({
      kind: 'systematic-failure',
      disposition: 'operator',
      rule: 'result-line',
      units: BREAKER_UNITS,
      launches: BREAKER_UNITS * ATTEMPTS,
    });
    expect(stop.kind === 'systematic-failure' && stop.example).toMatch(/^kb\/notes\/\S+\.md × frontmatter\/\S+: .*`fake output`/);
    expect(stop.reason).toMatch(/^the first 10 units of the batch all failed the result-line check \(20 launches spent\), e\.g\. /);
    // The failed units are not problems: they are asked again after the fix. At most the unit in flight beside the tenth was launched besides.
    expect(progress!.counts.problems).toBe(0);
    expect(progress!.counts.written).toEqual({ pass: 0, warn: 0, fail: 0, report: 0 });
    const launchedAtStop = await starts();
    expect(launchedAtStop).toBeGreaterThanOrEqual(BREAKER_UNITS * ATTEMPTS);
    expect(launchedAtStop).toBeLessThanOrEqual((BREAKER_UNITS + 1) * ATTEMPTS);
    expect(launchedAtStop).toBeLessThan(pairs.length * ATTEMPTS);
    const details = (await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata')).currentDetails ?? '';
    expect(details).toContain(
      `next: \`commonplace review run gates --resume ${input.runId}${env().namespace === 'default' ? '' : ` --namespace ${env().namespace}`}\``,
    );

    // The fix: the harness now reviews. The resume re-arms the breaker and asks every unit not accepted.
    await writeFile(sweep.scenario, JSON.stringify({ launches: [{ attempts: [{ review: 'pass' }] }] }));
    await handle.executeUpdate('resume');
    const summary = (await handle.result()) as SweepSummary;
    expect(summary.status).toBe('completed');
    expect(summary.counts.problems).toBe(0);
    expect(summary.counts.pairsDone).toBe(pairs.length);
    expect(summary.counts.written.pass).toBe(pairs.length);
    expect((await starts()) - launchedAtStop).toBe(pairs.length);
  });
  expect((await sweep.pairs()).filter((pair) => pair.status !== 'fresh')).toEqual([]);
});
