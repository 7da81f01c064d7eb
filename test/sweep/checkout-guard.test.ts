import { join } from 'node:path';
import { runCli } from '../helpers/cli.js';
import { computedOnce } from '../helpers/once.js';
import { useDevServerWithCliWorker } from '../helpers/servers.js';
import { fakeSweep, sweepRunOf } from '../helpers/sweep.js';

const { address } = useDevServerWithCliWorker();
const GATE = 'frontmatter/description-discrimination';

describe('a gate-review worker that writes a new file under kb/notes/', () => {
  const run = computedOnce(async () => {
    const stray = (checkout: string) => ({ [join(checkout, 'kb', 'notes', 'written-by-a-reviewer.md')]: 'a reviewer wrote this\n' });
    const sweep = await fakeSweep(({ checkout }) => [{ attempts: [{ review: 'pass', writeOutside: stray(checkout) }, { review: 'pass' }] }], { gates: [GATE] });
    const cliEnv = { env: { TEMPORAL_ADDRESS: address() } };
    const stopped = await runCli(sweep.command(), cliEnv);
    const freshAtStop = (await sweep.pairs()).filter((pair) => pair.status === 'fresh').length;
    const acknowledged = await runCli(['review', 'acknowledge', sweepRunOf(stopped)], cliEnv);
    const freshAfter = (await sweep.pairs()).every((pair) => pair.status === 'fresh');
    return { stopped, freshAtStop, acknowledged, freshAfter, launches: (await sweep.starts()).length };
  });

  test('stops the sweep with checkout-changed (exit 2), naming the path, the launch, and the acknowledge command', () => {
    const { stopped } = run();
    expect(stopped.exitCode).toBe(2);
    expect(stopped.stdout).toMatch(/checkout-changed/);
    expect(stopped.stdout).toMatch(/the KB changed outside review state while launch \S+ ran: kb\/notes\/written-by-a-reviewer\.md/);
    expect(stopped.stdout).toMatch(/node \S+ review acknowledge GS-/);
  });

  test('does not have its answer accepted: no result file was written for its pair', () => {
    expect(run().freshAtStop).toBe(0);
  });

  test('once acknowledged, the sweep goes on and judges the recorded answer again, asking nothing again: its note did not change', () => {
    expect(run()).toMatchObject({ acknowledged: { exitCode: 0 }, freshAfter: true, launches: 1 });
  });
});
