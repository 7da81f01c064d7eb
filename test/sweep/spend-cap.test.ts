import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { selectPairs } from '../../src/review/status.js';
import type { SweepInput, SweepProgress, SweepSummary } from '../../src/review/sweep-types.js';
import { TASK_QUEUE } from '../../src/search-attributes.js';
import { fakeScenario, readLedger, scratch, waitFor } from '../helpers/fake.js';
import { corpusCopy, someNotes } from '../helpers/kb.js';
import { fakeProfilesFile } from '../helpers/probe.js';
import { testWorker, uniqueId } from '../helpers/temporal.js';
import { useDevServer } from '../helpers/servers.js';
import { updateRejection } from '../analysis/helpers.js';

const { env } = useDevServer();
const gates = ['frontmatter/*', 'sentence/framing-mismatch'];

test('a sweep with --max-cost stops with spend-limit before passing it; a resume with a raised cap finishes it, and its result files carry their cost', async () => {
  const notes = await someNotes(2);
  const checkout = await corpusCopy();
  const dir = await scratch();
  // Each launch reports $0.10. With two launches in flight, the sweep stops once a third would pass $0.25.
  const { env: fakeEnv, ledger } = await fakeScenario(dir, [{ attempts: [{ review: 'pass', costUsd: 0.1, tokens: { input: 500, output: 40 } }] }]);
  const profilesFile = await fakeProfilesFile(dir, { fake: { harness: 'fake', timeout: '1m', attempts: 3 } });
  const pairs = await selectPairs(checkout, { notes, gates });
  expect(pairs.length).toBeGreaterThan(3);
  const runId = uniqueId('GS').replace(/\//g, '-');
  const input: SweepInput = {
    checkout,
    runId,
    notes,
    gates,
    grouping: 'pair',
    profile: 'fake',
    concurrency: 2,
    batchSize: 3,
    autoResume: false,
    profilesFile,
    env: fakeEnv,
    maxCostUsd: 0.25,
  };
  const worker = await testWorker(env(), { stateDir: join(dir, 'state') });
  await worker.runUntil(async () => {
    const handle = await env().client.workflow.start('gateSweep', { taskQueue: TASK_QUEUE, workflowId: `gates/${runId}`, args: [input] });
    let progress: SweepProgress | undefined;
    await waitFor('the sweep to stop', async () => (progress = await handle.query<SweepProgress>('progress')).status === 'stopped', 60_000);
    const stop = progress!.stops[0]!;
    expect(stop).toMatchObject({ kind: 'spend-limit', disposition: 'operator', capUsd: 0.25 });
    // The bound: what ran is at most the cap (two launches of $0.10; no third was started).
    expect(progress!.spend!.costUsd).toBeLessThanOrEqual(0.25);
    expect(progress!.counts.costUsd).toBeCloseTo(0.2, 9);
    expect((await readLedger(ledger)).filter((entry) => entry.event === 'start')).toHaveLength(2);

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
  expect((await readLedger(ledger)).filter((entry) => entry.event === 'start')).toHaveLength(pairs.length);
  const result = await readFile(join(checkout, pairs[0]!.resultPath), 'utf8');
  expect(result).toMatch(/\ncost_usd: 0\.1\ninput_tokens: 500\noutput_tokens: 40\ncache_read_tokens: 0\ncache_write_tokens: 0\n---\n/);
});
