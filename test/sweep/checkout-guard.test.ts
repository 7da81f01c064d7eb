import { join } from 'node:path';
import { selectPairs } from '../../src/review/status.js';
import { runCli } from '../helpers/cli.js';
import { fakeScenario, readLedger, scratch } from '../helpers/fake.js';
import { corpusCopy, someNotes } from '../helpers/kb.js';
import { useDevServerWithCliWorker } from '../helpers/servers.js';

const { address } = useDevServerWithCliWorker();
const GATE = 'frontmatter/description-discrimination';

describe('a gate-review worker that writes a new file under kb/notes/', () => {
  type Run = Awaited<ReturnType<typeof runCli>>;
  let stopped: Run;
  let acknowledged: Run;
  let freshAtStop: number;
  let freshAfter: boolean;
  let launches: number;
  beforeAll(async () => {
    const checkout = await corpusCopy();
    const notes = await someNotes(1);
    const stray = join(checkout, 'kb', 'notes', 'written-by-a-reviewer.md');
    const { scenario, ledger } = await fakeScenario(await scratch(), [
      { attempts: [{ review: 'pass', writeOutside: { [stray]: 'a reviewer wrote this\n' } }, { review: 'pass' }] },
    ]);
    const cliEnv = { env: { TEMPORAL_ADDRESS: address() } };
    stopped = await runCli(
      ['review', 'run', 'gates', '--kb', checkout, '--profile', 'fake', '--scenario', scenario, '--gates', GATE, '--notes', notes[0]!],
      cliEnv,
    );
    freshAtStop = (await selectPairs(checkout, { notes, gates: [GATE], criteria: ['gates'] })).filter((pair) => pair.status === 'fresh').length;
    const run = /(GS-[0-9a-f]{8}-[0-9a-f]{10})/.exec(String(stopped.stdout) + String(stopped.stderr))?.[1] ?? 'no run shown';
    acknowledged = await runCli(['review', 'acknowledge', run], cliEnv);
    freshAfter = (await selectPairs(checkout, { notes, gates: [GATE], criteria: ['gates'] })).every((pair) => pair.status === 'fresh');
    launches = (await readLedger(ledger)).filter((entry) => entry.event === 'start').length;
  });

  test('stops the sweep with checkout-changed (exit 2), naming the path, the launch, and the acknowledge command', () => {
    expect(stopped.exitCode).toBe(2);
    expect(stopped.stdout).toMatch(/checkout-changed/);
    expect(stopped.stdout).toMatch(/the KB changed outside review state while launch \S+ ran: kb\/notes\/written-by-a-reviewer\.md/);
    expect(stopped.stdout).toMatch(/node \S+ review acknowledge GS-/);
  });

  test('does not have its answer accepted: no result file was written for its pair', () => {
    expect(freshAtStop).toBe(0);
  });

  test('once acknowledged, the sweep goes on and judges the recorded answer again, asking nothing again: its note did not change', () => {
    expect(acknowledged.exitCode).toBe(0);
    expect(freshAfter).toBe(true);
    expect(launches).toBe(1);
  });
});
