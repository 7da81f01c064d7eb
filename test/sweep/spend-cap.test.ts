import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SweepProgress, SweepSummary } from '../../src/review/sweep-types.js';
import { waitFor } from '../helpers/fake.js';
import { queryOnceStarted } from '../helpers/temporal.js';
import { useDevServer } from '../helpers/servers.js';
import { fakeSweep, startSweep } from '../helpers/sweep.js';
import { ledgerStarts } from '../helpers/fake.js';
import { progressLine } from '../../src/client/review/shared/sweep-format.js';
import type { BatchProgress } from '../../src/workflows/gate-batch.js';
import { updateRejection } from '../analysis/helpers.js';

const { env } = useDevServer();
const gates = ['frontmatter/*', 'sentence/framing-mismatch'];

test('a sweep with --max-cost stops with spend-limit before passing it; a resume with a raised cap finishes it, and its result files carry their cost', async () => {
  // Each launch reports $0.10. With two launches in flight, the sweep stops once a third would pass $0.25.
  const sweep = await fakeSweep([{ attempts: [{ review: 'pass', costUsd: 0.1, tokens: { input: 500, output: 40 } }] }], { notes: 2, gates });
  const { checkout, ledger } = sweep;
  const pairs = await sweep.pairs();
  expect(pairs.length).toBeGreaterThan(3);
  const worker = await sweep.worker(env());
  await worker.runUntil(async () => {
    const handle = await startSweep(env(), sweep.input({ concurrency: 2, batchSize: 3, maxCostUsd: 0.25 }));
    let progress: SweepProgress | undefined;
    await waitFor('the sweep to stop', async () => (progress = await handle.query<SweepProgress>('progress')).status === 'stopped', 60_000);
    const stop = progress!.stops[0]!;
    expect(stop).toMatchObject({ kind: 'spend-limit', disposition: 'operator', capUsd: 0.25 });
    // The bound: what ran is at most the cap (two launches of $0.10; no third was started).
    expect(progress!.spend!.costUsd).toBeLessThanOrEqual(0.25);
    expect(progress!.counts.costUsd).toBeCloseTo(0.2, 9);
    expect(await sweep.starts()).toHaveLength(2);
    // The stop came while the second launch was in flight; its text is the spend after that launch settled, and its least cap one the resume takes.
    expect(stop.reason).toMatch(/^spent \$0\.2000 of the \$0\.2500 cap; .*at least \$0\.30\)$/);
    expect(stop).toMatchObject({ spentUsd: expect.closeTo(0.2, 9) as number });

    expect(await updateRejection(handle.executeUpdate('resume', { args: [{}] }))).toMatch(/stopped at its spend cap.*higher --max-cost/);
    await handle.executeUpdate('resume', { args: [{ maxCostUsd: 10 }] });
    const summary = (await handle.result()) as SweepSummary;
    expect(summary.status).toBe('completed');
    expect(summary.counts.pairsDone).toBe(pairs.length);
    expect(summary.counts.launches).toBe(pairs.length);
    expect(summary.counts.costUsd).toBeCloseTo(0.1 * pairs.length, 9);
    expect(summary.counts.tokens).toEqual({ input: 500 * pairs.length, output: 40 * pairs.length, cacheRead: 0, cacheWrite: 0 });
    expect(summary.spend).toMatchObject({ capUsd: 10, launches: pairs.length });
    const written = JSON.parse(await readFile(join(summary.runDir, 'summary.json'), 'utf8')) as SweepSummary;
    expect(written.counts.costUsd).toBeCloseTo(0.1 * pairs.length, 9);
  });
  // Every pair was launched once, and its result file says what it cost.
  expect(await ledgerStarts(ledger)).toHaveLength(pairs.length);
  const result = await readFile(join(checkout, pairs[0]!.resultPath), 'utf8');
  expect(result).toMatch(/\ncost_usd: 0\.1\ninput_tokens: 500\noutput_tokens: 40\ncache_read_tokens: 0\ncache_write_tokens: 0\n---\n/);
});

test("a sweep's running batch shows the run-wide spend: entering batch 2, its progress and the live line hold batch 1's dollars", async () => {
  // Launches 1-3 (batch 1) report $0.10 each; the 4th, the first of batch 2, waits until the test releases it.
  const paid = { review: 'pass' as const, costUsd: 0.1, tokens: { input: 500, output: 40 } };
  const sweep = await fakeSweep(({ release }) => [{ attempts: [paid, paid, paid, { ...paid, waitForFile: release }] }], { notes: 2, gates });
  const pairs = await sweep.pairs();
  const worker = await sweep.worker(env());
  await worker.runUntil(async () => {
    const handle = await startSweep(env(), sweep.input({ batchSize: 3 }));
    let progress: SweepProgress | undefined;
    let batch: BatchProgress | undefined;
    await waitFor(
      'batch 2 to run its first launch',
      async () => {
        progress = await handle.query<SweepProgress>('progress');
        if (progress.batch !== 1 || progress.currentBatch === undefined) return false;
        batch = await queryOnceStarted<BatchProgress>(env(), progress.currentBatch, 'batchProgress');
        return batch?.inFlight === 1;
      },
      60_000,
    );
    expect(progress!.counts.costUsd).toBeCloseTo(0.3, 9);
    expect(batch!.spend!.costUsd).toBeCloseTo(0.3, 9);
    expect(batch!.spend!.launches).toBe(3);
    expect(progress!.pairs).toBe(pairs.length);
    expect(progressLine(progress!, batch, { now: Date.now() })).toContain('3 launches, $0.3000');
    await sweep.releaseLaunch();
    const summary = (await handle.result()) as SweepSummary;
    expect(summary.counts.costUsd).toBeCloseTo(0.1 * pairs.length, 9);
  });
});
