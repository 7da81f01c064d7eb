import { selectPairs } from '../../src/review/status.js';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runCli, startCli } from '../helpers/cli.js';
import { fakeScenario, readLedger, scratch, waitFor } from '../helpers/fake.js';
import { corpusCopy, someNotes } from '../helpers/kb.js';
import { useDevServerWithCliWorker } from '../helpers/servers.js';

const { address } = useDevServerWithCliWorker();
const gates = 'frontmatter/*';

async function sweepCommand(rules: Parameters<typeof fakeScenario>[1], notes: string[]) {
  const checkout = await corpusCopy();
  const { scenario, ledger } = await fakeScenario(await scratch(), rules);
  const args = [
    'review',
    'run',
    'gates',
    '--kb',
    checkout,
    '--profile',
    'fake',
    '--scenario',
    scenario,
    '--gates',
    gates,
    '--concurrency',
    '2',
    ...notes.flatMap((note) => ['--notes', note]),
  ];
  return { checkout, ledger, run: () => runCli(args, { env: { TEMPORAL_ADDRESS: address() } }) };
}

describe('two `review run gates` of the same command started at the same instant', () => {
  let results: Awaited<ReturnType<typeof runCli>>[];
  let pairs: number;
  let launches: number;
  beforeAll(async () => {
    const notes = await someNotes(2);
    const sweep = await sweepCommand([{ attempts: [{ review: 'pass', delayMs: 300 }] }], notes);
    pairs = (await selectPairs(sweep.checkout, { notes, gates: [gates] })).length;
    results = await Promise.all([sweep.run(), sweep.run()]);
    launches = (await readLedger(sweep.ledger)).filter((entry) => entry.event === 'start').length;
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
  const notes = await someNotes(1);
  const first = await sweepCommand([{ attempts: [{ usageLimit: 'Claude AI usage limit reached|1767240000' }] }], notes);
  const stopped = await first.run();
  expect(stopped.exitCode).toBe(2);
  const second = await sweepCommand([{ attempts: [{ review: 'pass' }] }], notes);
  const other = await second.run();
  expect(other.stderr).not.toMatch(/another sweep/);
  expect(other.exitCode).toBe(0);
  const runs = [stopped, other].map((result) => /(GS-[0-9a-f]{8})-/.exec(String(result.stdout) + String(result.stderr))?.[1]);
  expect(runs[0]).not.toBe(runs[1]);
});

test('Ctrl-C while following a sweep ends the following, not the sweep: it says how to follow again, and the sweep completes', async () => {
  const notes = await someNotes(1);
  const release = join(await scratch(), 'release');
  const checkout = await corpusCopy();
  const { scenario, ledger } = await fakeScenario(await scratch(), [{ attempts: [{ review: 'pass', waitForFile: release }] }]);
  const args = ['review', 'run', 'gates', '--kb', checkout, '--profile', 'fake', '--scenario', scenario, '--gates', gates, '--notes', notes[0]!];
  const following = startCli(args, { env: { TEMPORAL_ADDRESS: address() }, reject: false });
  await waitFor('the launch to be held', async () => (await readLedger(ledger)).some((entry) => entry.event === 'waiting'), 120_000);
  following.kill('SIGINT');
  const ended = await following;
  expect(ended.exitCode).toBe(130);
  expect(String(ended.stderr)).toMatch(/stopped following gates\/GS-\S+; the run goes on on the server — follow it again with the same command/);
  await writeFile(release, '');
  const again = await runCli(args, { env: { TEMPORAL_ADDRESS: address() } });
  expect(again.exitCode).toBe(0);
  expect(String(again.stdout)).toMatch(/sweep GS-\S+ completed/);
});
