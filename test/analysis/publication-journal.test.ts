import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Manifest } from '../../src/analysis/manifest.js';
import type { AnalysisResult } from '../../src/analysis/progress.js';
import { publicationJournalFile } from '../../src/analysis/run-dir.js';
import { startFaultWorker } from '../helpers/faults.js';
import { testWorker } from '../helpers/temporal.js';
import { pathExists } from '../../src/fs/exists.js';
import { useDevServer } from '../helpers/servers.js';
import { readJson, startAnalysis } from './helpers.js';
import { branchCommits, destinationOf, journalOf, prepared, publishedPaths, stoppedRun } from './publication-helpers.js';

// Publication's journal: a worker killed between its steps, and a journal whose outcome is unknown. The rest of
// publication is test/analysis/publication.test.ts.
// The kill is real (a worker process of its own, SIGKILL, on the dev server); only the waits it brings shrink: the
// file's runs are on a clock ten times quicker than the shipped one (test/helpers/scaled-clock.ts), so the dead
// worker's heartbeat timeout and the retry after it pass quickly. test/harness/relaunch.test.ts proves the shipped
// numbers on the time-skipping server.
const { env, address } = useDevServer({ quickerClock: 10 });

test('a worker killed between journal steps of publication: the retry on another worker completes it, writing each file and committing exactly once', async () => {
  const run = await prepared();
  // The first worker is a process that kills itself once the journal says the third file is written.
  const first = startFaultWorker(
    { do: 'kill', at: 'publication-journaled', detail: 'written', nth: 3 },
    { address: address(), state: join(run.dir, 'state-1') },
  );
  const handle = await startAnalysis(env(), run.input);
  expect((await first).signal).toBe('SIGKILL');
  const interrupted = await journalOf(run.prepared);
  expect(interrupted.filter((entry) => entry.event === 'written')).toHaveLength(3);
  expect(interrupted.map((entry) => entry.event)).not.toContain('committing');
  expect((await branchCommits(run.prepared)).length).toBe(0);

  const second = await testWorker(env(), { stateDir: join(run.dir, 'state-2') });
  const outcome = (await second.runUntil(handle.result())) as AnalysisResult;
  expect(outcome.status).toBe('completed');
  const manifest = await readJson<Manifest>(outcome.manifest!);
  expect(manifest.status).toBe('published');
  const journal = await journalOf(run.prepared);
  const writes = journal.filter((entry) => entry.event === 'writing').map((entry) => entry.path);
  expect(writes.sort()).toEqual(await publishedPaths(run.prepared, manifest));
  expect(journal.filter((entry) => entry.event === 'begin')).toHaveLength(1);
  expect(journal.filter((entry) => entry.event === 'committed')).toHaveLength(1);
  const commits = await branchCommits(run.prepared);
  expect(commits).toEqual([{ commit: manifest.publication?.commit, paths: await publishedPaths(run.prepared, manifest) }]);
});

test.each([
  ['a torn last line', (begin: string) => `${begin}\n{"event":"writ`],
  ['a begin of other bytes', (begin: string) => `${begin.replace(/"publication":"[0-9a-f]+"/, `"publication":"${'0'.repeat(64)}"`)}\n`],
])(
  'a journal with an unknown outcome (%s) stops the run as publication-uncertain with the journal as evidence, and writes nothing',
  async (_label, journalText) => {
    const run = await prepared();
    const journal = publicationJournalFile(run.prepared.runDir);
    const begin = JSON.stringify({
      event: 'begin',
      publication: 'x',
      destination: destinationOf(run.prepared),
      base: run.prepared.parameters.preparationCommit,
      files: {},
      at: '2030-01-01T00:00:00.000Z',
    });
    await writeFile(journal, journalText(begin));
    const worker = await testWorker(env(), { stateDir: join(run.dir, 'state') });
    await worker.runUntil(async () => {
      const handle = await startAnalysis(env(), run.input);
      const progress = await stoppedRun(handle);
      expect(progress.status).toBe('stopped');
      expect(progress.stops.map((stop) => [stop.kind, stop.disposition, stop.evidence])).toEqual([['publication-uncertain', 'inspect', journal]]);
      expect(progress.stage).toBe('publication');
      expect(await pathExists(join(run.prepared.worktree, destinationOf(run.prepared)))).toBe(false);
      expect(await branchCommits(run.prepared)).toEqual([]);
      // The operator reads the journal, finds nothing was published, sets it aside, and resumes: publication starts afresh.
      await rm(journal);
      await handle.executeUpdate('resume');
      expect(((await handle.result()) as AnalysisResult).status).toBe('completed');
      expect(await branchCommits(run.prepared)).toHaveLength(1);
    });
  },
);
