import { join } from 'node:path';
import { runCli } from '../helpers/cli.js';
import { useDevServerWithCliWorker } from '../helpers/servers.js';
import { fakeSweep, sweepRunOf } from '../helpers/sweep.js';

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
    const sweep = await fakeSweep(
      ({ checkout }) => [
        {
          attempts: [
            { review: 'pass', writeOutside: { [join(checkout, 'kb', 'notes', 'written-by-a-reviewer.md')]: 'a reviewer wrote this\n' } },
            { review: 'pass' },
          ],
        },
      ],
      { gates: [GATE] },
    );
    const cliEnv = { env: { TEMPORAL_ADDRESS: address() } };
    stopped = await runCli(sweep.command(), cliEnv);
    freshAtStop = (await sweep.pairs()).filter((pair) => pair.status === 'fresh').length;
    acknowledged = await runCli(['review', 'acknowledge', sweepRunOf(stopped)], cliEnv);
    freshAfter = (await sweep.pairs()).every((pair) => pair.status === 'fresh');
    launches = (await sweep.starts()).length;
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
