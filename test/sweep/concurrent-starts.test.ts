import { runCli, startCli } from '../helpers/cli.js';
import { readLedger, waitFor, type FakeRule } from '../helpers/fake.js';
import { useDevServerWithCliWorker } from '../helpers/servers.js';
import { fakeSweep } from '../helpers/sweep.js';

const { address } = useDevServerWithCliWorker();

async function sweepCommand(rules: FakeRule[], notes: number) {
  const sweep = await fakeSweep(rules, { notes });
  const args = sweep.command({ concurrency: 2 });
  return { ...sweep, run: () => runCli(args, { env: { TEMPORAL_ADDRESS: address() } }) };
}

describe('two `review run gates` of the same command started at the same instant', () => {
  let results: Awaited<ReturnType<typeof runCli>>[];
  let pairs: number;
  let launches: number;
  beforeAll(async () => {
    const sweep = await sweepCommand([{ attempts: [{ review: 'pass', delayMs: 300 }] }], 2);
    pairs = (await sweep.pairs()).length;
    results = await Promise.all([sweep.run(), sweep.run()]);
    launches = (await sweep.starts()).length;
  });

  test('both complete (exit 0) reporting the same sweep', () => {
    expect(results.map((result) => result.exitCode)).toEqual([0, 0]);
    const runs = results.map((result) => /sweep (GS-\S+) completed/.exec(String(result.stdout))?.[1]);
    expect(runs[0]).toMatch(/^GS-[0-9a-f]{8}-[0-9a-f]{10}$/);
    expect(runs[1]).toBe(runs[0]);
  });

  test('every pair is launched once: no launch is paid twice', () => {
    expect(pairs).toBeGreaterThan(1);
    expect(launches).toBe(pairs);
  });
});

test('a stopped sweep in one checkout does not block a sweep in another checkout on the same namespace', async () => {
  const first = await sweepCommand([{ attempts: [{ usageLimit: 'Claude AI usage limit reached|1767240000' }] }], 1);
  const stopped = await first.run();
  expect(stopped.exitCode).toBe(2);
  const second = await sweepCommand([{ attempts: [{ review: 'pass' }] }], 1);
  const other = await second.run();
  expect(other.stderr).not.toMatch(/another sweep/);
  expect(other.exitCode).toBe(0);
  const runs = [stopped, other].map((result) => /(GS-[0-9a-f]{8})-/.exec(String(result.stdout) + String(result.stderr))?.[1]);
  expect(runs[0]).not.toBe(runs[1]);
});

test('Ctrl-C while following a sweep ends the following, not the sweep: it says how to follow again, and the sweep completes', async () => {
  const sweep = await fakeSweep(({ release }) => [{ attempts: [{ review: 'pass', waitForFile: release }] }]);
  const args = sweep.command();
  const following = startCli(args, { env: { TEMPORAL_ADDRESS: address() }, reject: false });
  await waitFor('the launch to be held', async () => (await readLedger(sweep.ledger)).some((entry) => entry.event === 'waiting'), 120_000);
  following.kill('SIGINT');
  const ended = await following;
  expect(ended.exitCode).toBe(130);
  expect(String(ended.stderr)).toMatch(/stopped following gates\/GS-\S+; the run goes on on the server — follow it again with the same command/);
  await sweep.releaseLaunch();
  const again = await runCli(args, { env: { TEMPORAL_ADDRESS: address() } });
  expect(again.exitCode).toBe(0);
  expect(String(again.stdout)).toMatch(/sweep GS-\S+ completed/);
});
