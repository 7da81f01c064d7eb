import { selectPairs } from '../../src/review/status.js';
import { runCli } from '../helpers/cli.js';
import { fakeScenario, readLedger, scratch } from '../helpers/fake.js';
import { corpusCopy, someNotes } from '../helpers/kb.js';
import { useDevServerWithCliWorker } from '../helpers/servers.js';

const { address } = useDevServerWithCliWorker();
const gates = 'frontmatter/*';

async function sweepCommand(rules: Parameters<typeof fakeScenario>[1], notes: string[]) {
  const checkout = await corpusCopy();
  const { scenario, ledger } = await fakeScenario(await scratch(), rules);
  const args = ['review', 'run', 'gates', '--kb', checkout, '--profile', 'fake', '--scenario', scenario, '--gates', gates, '--concurrency', '2', ...notes.flatMap((note) => ['--notes', note])];
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
