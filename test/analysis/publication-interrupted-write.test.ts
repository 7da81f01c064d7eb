import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { dirtyPaths } from '../../src/activities/analysis/git.js';
import type { Manifest } from '../../src/analysis/manifest.js';
import type { AnalysisResult } from '../../src/analysis/progress.js';
import { startFaultWorker } from '../helpers/faults.js';
import { useDevServer } from '../helpers/servers.js';
import { testWorker } from '../helpers/temporal.js';
import { readJson, startAnalysis } from './helpers.js';
import { branchCommits, destinationOf, journalOf, prepared, publishedPaths, stoppedRun } from './publication-helpers.js';

// A worker killed inside a file's atomic write during publication (its temporary copy written, not renamed). The
// kill is real (a worker process of its own, SIGKILL, on the dev server); the file's runs are on a clock ten times
// quicker than the shipped one (test/helpers/scaled-clock.ts), so the dead worker's heartbeat timeout passes quickly.
const { env, address } = useDevServer({ quickerClock: 10 });

/** The hidden temporary files under a directory. */
async function tempFilesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => entry.isFile() && /^\..*\.tmp$/.test(entry.name)).map((entry) => join(entry.parentPath, entry.name));
}

test("a worker killed between a file's temporary copy and its rename: the retry removes the copy, stages none, and publishes each file once", async () => {
  const run = await prepared();
  const destination = join(run.prepared.worktree, destinationOf(run.prepared));
  // The first worker kills itself inside the second file's atomic write, once its temporary copy is written.
  const first = startFaultWorker({ do: 'kill', at: 'temp-written', nth: 2 }, { address: address(), state: join(run.dir, 'state-1') });
  const handle = await startAnalysis(env(), run.input);
  expect((await first).signal).toBe('SIGKILL');
  const interrupted = await journalOf(run.prepared);
  expect(interrupted.filter((entry) => entry.event === 'written')).toHaveLength(1);
  expect(interrupted.filter((entry) => entry.event === 'writing')).toHaveLength(2);
  expect(await tempFilesUnder(destination)).toHaveLength(1);

  const second = await testWorker(env(), { stateDir: join(run.dir, 'state-2') });
  const outcome = await second.runUntil(async () => {
    const progress = await stoppedRun(handle);
    expect(progress.stops.map((stop) => stop.kind)).toEqual([]);
    return (await handle.result()) as AnalysisResult;
  });
  expect(outcome.status).toBe('completed');
  const manifest = await readJson<Manifest>(outcome.manifest!);
  expect(manifest.status).toBe('published');
  expect(await tempFilesUnder(destination)).toEqual([]);
  expect(await dirtyPaths(run.prepared.worktree)).toEqual([]);
  const journal = await journalOf(run.prepared);
  const written = journal.filter((entry) => entry.event === 'written').map((entry) => entry.path);
  expect(written.sort()).toEqual(await publishedPaths(run.prepared, manifest));
  expect(await branchCommits(run.prepared)).toEqual([{ commit: manifest.publication?.commit, paths: await publishedPaths(run.prepared, manifest) }]);
});
