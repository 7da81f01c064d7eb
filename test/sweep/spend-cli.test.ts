import { usd } from '../../src/runs/spend.js';
import { runCli } from '../helpers/cli.js';
import { useDevServerWithCliWorker } from '../helpers/servers.js';
import { fakeSweep, outcomeOf } from '../helpers/sweep.js';

const { address } = useDevServerWithCliWorker();

test('review run gates --max-cost stops at the cap with exit 2 and the command to raise it; --resume without a higher cap is refused, with one it completes', async () => {
  const sweep = await fakeSweep([{ attempts: [{ review: 'pass', costUsd: 0.1 }] }]);
  const { checkout } = sweep;
  const pairs = await sweep.pairs();
  expect(pairs.length).toBeGreaterThan(1);
  const cliEnv = sweep.cliEnv(address());
  const args = sweep.command({ concurrency: 1 });

  const stopped = await runCli([...args, '--max-cost', '0.15'], { env: cliEnv });
  expect(stopped.exitCode).toBe(2);
  expect(stopped.stdout).toMatch(/stopped: spend-limit \(operator\)/);
  expect(stopped.stdout).toMatch(/spent \$0\.1000 of the \$0\.1500 cap/);
  const runId = /continue with a higher cap: node \S+ review run gates --resume (GS-\S+) --max-cost 0\.2 --kb \S+ --address \S+( --namespace \S+)?$/m.exec(
    String(stopped.stdout),
  )?.[1];
  expect(runId).toBeDefined();
  expect(await sweep.starts()).toHaveLength(1);

  const refused = await runCli(['review', 'run', 'gates', '--kb', checkout, '--resume', runId!], { env: cliEnv });
  expect(refused.exitCode).toBe(2);
  expect(`${refused.stdout}${refused.stderr}`).toMatch(/not resumed: .*higher --max-cost/);

  const refusedJson = await runCli(['review', 'run', 'gates', '--kb', checkout, '--resume', runId!, '--json'], { env: cliEnv });
  expect(outcomeOf(refusedJson, 2)).toMatchObject({
    status: 'stopped',
    exitCode: 2,
    next: `commonplace review run gates --resume ${runId!} --max-cost 0.2`,
    stops: [{ kind: 'spend-limit' }],
  });

  const resumed = await runCli(['review', 'run', 'gates', '--kb', checkout, '--resume', runId!, '--max-cost', '5'], { env: cliEnv });
  expect(resumed.exitCode).toBe(0);
  expect(resumed.stdout).toMatch(/sweep GS-\S+ completed/);
  // The resumed sweep's report names its run directory as a path of this host, not as the token its data carries.
  expect(resumed.stdout).toMatch(new RegExp(`^ {2}run directory +${checkout.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/kb/reports/`, 'm'));
  expect(resumed.stdout).not.toMatch(/<checkout:/);
  expect(resumed.stdout).toContain(`${usd(0.1 * pairs.length)} of $5.00 cap`);
  expect(resumed.stdout).toMatch(/tokens +\d+\.\dk in, 0\.\dk out/);
});
