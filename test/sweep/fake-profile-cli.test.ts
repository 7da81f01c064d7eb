// `review run gates --profile fake` through the real CLI: without a scenario the fake harness reviews
// any KB (every pair passes); with a scenario that never answers in the result-line form, the sweep
// stops as systematic-failure (exit 2, the one next command) and that command, after the fix, completes it.
import { writeFile } from 'node:fs/promises';
import { selectPairs } from '../../src/review/status.js';
import { runCli } from '../helpers/cli.js';
import { paste, printed } from '../helpers/paste.js';
import { fakeScenario, readLedger, scratch } from '../helpers/fake.js';
import { corpusCopy, someNotes } from '../helpers/kb.js';
import { fakeProfilesFile } from '../helpers/probe.js';
import { useDevServerWithCliWorker } from '../helpers/servers.js';

const { address } = useDevServerWithCliWorker();

const gates = 'frontmatter/*';

test('review run gates --profile fake with no scenario writes a passing result for every pair and exits 0', async () => {
  const checkout = await corpusCopy();
  const notes = await someNotes(1);
  const pairs = await selectPairs(checkout, { notes, gates: [gates] });
  const done = await runCli(['review', 'run', 'gates', '--kb', checkout, '--profile', 'fake', '--gates', gates, '--notes', notes[0]!], {
    env: { TEMPORAL_ADDRESS: address() },
  });
  expect(done.exitCode).toBe(0);
  expect(done.stdout).toMatch(/sweep GS-\S+ completed/);
  const after = await selectPairs(checkout, { notes, gates: [gates] });
  expect(after.map((pair) => pair.status)).toEqual(pairs.map(() => 'fresh'));
});

test('a sweep whose answers all miss the result line stops as systematic-failure with exit 2; the printed command after the fix completes it', async () => {
  const checkout = await corpusCopy();
  const notes = await someNotes(3);
  const dir = await scratch();
  const { scenario, ledger } = await fakeScenario(dir, [{ attempts: [{ writeDeclared: 'Looks fine to me.\n' }] }]);
  const profiles = await fakeProfilesFile(dir, { fake: { harness: 'fake', timeout: '1m', attempts: 1 } });
  const pairs = await selectPairs(checkout, { notes, gates: [gates] });
  expect(pairs.length).toBeGreaterThan(11);
  const cliEnv = { TEMPORAL_ADDRESS: address(), COMMONPLACE_FAKE_LEDGER: ledger };
  const args = [
    'review',
    'run',
    'gates',
    '--kb',
    checkout,
    '--profile',
    'fake',
    '--profiles',
    profiles,
    '--scenario',
    scenario,
    '--gates',
    gates,
    '--concurrency',
    '1',
    ...notes.flatMap((note) => ['--notes', note]),
  ];

  const stopped = await runCli(args, { env: cliEnv });
  expect(stopped.exitCode).toBe(2);
  expect(stopped.stdout).toMatch(/stopped: systematic-failure \(operator\)/);
  expect(stopped.stdout).toMatch(
    /the first 10 units of the batch all failed the result-line check \(10 launches spent\), e\.g\. kb\/notes\/\S+ × frontmatter\/\S+: .*`Looks fine to me\.`/,
  );
  const next = printed(stopped.stdout, 'continue with');
  expect(next).toMatch(/ review run gates --resume GS-\S+ --kb \S+ --address \S+( --namespace \S+)?$/);
  // One unit at a time: the tenth failure stopped it, and nothing more was launched.
  expect((await readLedger(ledger)).filter((entry) => entry.event === 'start')).toHaveLength(10);

  // The fix: the harness now reviews (the scenario keeps its ledger, which the CLI's worker finds through it).
  await writeFile(scenario, JSON.stringify({ ledger: 'ledger.jsonl', launches: [{ attempts: [{ review: 'pass' }] }] }));
  // Pasted in the shell that printed it: the printing command ran in this process's directory.
  const resumed = await paste(next, process.cwd());
  expect({ exitCode: resumed.exitCode, stderr: resumed.stderr }).toEqual({ exitCode: 0, stderr: resumed.exitCode === 0 ? resumed.stderr : '' });
  expect(resumed.stdout).toMatch(/sweep GS-\S+ completed/);
  expect((await selectPairs(checkout, { notes, gates: [gates] })).filter((pair) => pair.status !== 'fresh')).toEqual([]);
  expect((await readLedger(ledger)).filter((entry) => entry.event === 'start')).toHaveLength(10 + pairs.length);
});
