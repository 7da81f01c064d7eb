// `review run gates --profile fake` through the real CLI: without a scenario the fake harness reviews
// any KB (every pair passes); with a scenario that never answers in the result-line form, the sweep
// stops as systematic-failure (exit 2, the one next command) and that command, after the fix, completes it.
import { writeFile } from 'node:fs/promises';
import { runCli } from '../helpers/cli.js';
import { paste, printed } from '../helpers/paste.js';
import { useDevServerWithCliWorker } from '../helpers/servers.js';
import { fakeSweep, gatesCommand } from '../helpers/sweep.js';

const { address } = useDevServerWithCliWorker();

test('review run gates --profile fake with no scenario writes a passing result for every pair and exits 0', async () => {
  const sweep = await fakeSweep([]);
  const pairs = await sweep.pairs();
  const done = await runCli(gatesCommand({ kb: sweep.checkout, gates: sweep.gates, notes: sweep.notes }), { env: { TEMPORAL_ADDRESS: address() } });
  expect(done.exitCode).toBe(0);
  expect(done.stdout).toMatch(/sweep GS-\S+ completed/);
  expect((await sweep.pairs()).map((pair) => pair.status)).toEqual(pairs.map(() => 'fresh'));
});

test('a sweep whose answers all miss the result line stops as systematic-failure with exit 2; the printed command after the fix completes it', async () => {
  const sweep = await fakeSweep([{ attempts: [{ writeDeclared: 'Looks fine to me.\n' }] }], {
    notes: 3,
    profiles: { fake: { harness: 'fake', timeout: '1m', attempts: 1 } },
  });
  const pairs = await sweep.pairs();
  expect(pairs.length).toBeGreaterThan(11);

  const stopped = await runCli(sweep.command({ profiles: sweep.profilesFile, concurrency: 1 }), { env: sweep.cliEnv(address()) });
  expect(stopped.exitCode).toBe(2);
  expect(stopped.stdout).toMatch(/stopped: systematic-failure \(operator\)/);
  expect(stopped.stdout).toMatch(
    /the first 10 units of the batch all failed the result-line check \(10 launches spent\), e\.g\. kb\/notes\/\S+ × frontmatter\/\S+: .*`Looks fine to me\.`/,
  );
  const next = printed(stopped.stdout, 'continue with');
  expect(next).toMatch(/ review run gates --resume GS-\S+ --kb \S+ --address \S+( --namespace \S+)?$/);
  // One unit at a time: the tenth failure stopped it, and nothing more was launched.
  expect(await sweep.starts()).toHaveLength(10);

  // The fix: the harness now reviews (the scenario keeps its ledger, which the CLI's worker finds through it).
  await writeFile(sweep.scenario, JSON.stringify({ ledger: 'ledger.jsonl', launches: [{ attempts: [{ review: 'pass' }] }] }));
  // Pasted in the shell that printed it: the printing command ran in this process's directory.
  const resumed = await paste(next, process.cwd());
  expect({ exitCode: resumed.exitCode, stderr: resumed.stderr }).toEqual({ exitCode: 0, stderr: resumed.exitCode === 0 ? resumed.stderr : '' });
  expect(resumed.stdout).toMatch(/sweep GS-\S+ completed/);
  expect((await sweep.pairs()).filter((pair) => pair.status !== 'fresh')).toEqual([]);
  expect(await sweep.starts()).toHaveLength(10 + pairs.length);
});
