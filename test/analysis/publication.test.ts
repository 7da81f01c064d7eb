import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { integrateRun, IntegrateError } from '../../src/activities/analysis/integrate.js';
import { locateRun } from '../../src/activities/analysis/runs.js';
import type { Manifest } from '../../src/analysis/manifest.js';
import type { AnalysisResult } from '../../src/analysis/progress.js';
import { publicationJournalFile } from '../../src/analysis/run-dir.js';
import { runCli } from '../helpers/cli.js';
import { waitFor } from '../helpers/fake.js';
import { testWorker } from '../helpers/temporal.js';
import { sha256 } from '../../src/fs/digest.js';
import { pathExists } from '../../src/fs/exists.js';
import { useDevServer } from '../helpers/servers.js';
import { git, readJson, ROLES, sourceIdentity, startAnalysis } from './helpers.js';
import { branchCommits, destinationOf, journalOf, prepared, publishedPaths, stoppedRun, type Run } from './publication-helpers.js';

// Publication of a finished run, integration into main, and a destination taken on main. A worker killed
// mid-publication and a journal of unknown outcome are test/analysis/publication-journal.test.ts.
const { env } = useDevServer({ quickerClock: 10 });

describe('a published run', () => {
  let run: Run;
  let outcome: AnalysisResult;
  let currentDetails: string | undefined;
  beforeAll(async () => {
    run = await prepared();
    const worker = await testWorker(env(), { stateDir: join(run.dir, 'state') });
    await worker.runUntil(async () => {
      const handle = await startAnalysis(env(), run.input);
      outcome = (await handle.result()) as AnalysisResult;
      currentDetails = (await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata')).currentDetails;
    });
  });

  test('the members are copied to the layout destination and committed on the run branch, once, and the manifest says published', async () => {
    expect(outcome.status).toBe('completed');
    const manifest = await readJson<Manifest>(outcome.manifest!);
    expect(manifest.status).toBe('published');
    expect(manifest.publication?.destination).toBe(destinationOf(run.prepared));
    const commits = await branchCommits(run.prepared);
    expect(commits).toHaveLength(1);
    expect(commits[0]?.commit).toBe(manifest.publication?.commit);
    expect(commits[0]?.paths).toEqual(await publishedPaths(run.prepared, manifest));
    for (const [file, digest] of Object.entries(manifest.files)) {
      expect([file, sha256(await readFile(join(run.prepared.worktree, destinationOf(run.prepared), file)))]).toEqual([file, digest]);
    }
    expect(await git(run.prepared.worktree, 'status', '--porcelain', '--', 'kb')).toBe('');
    expect(outcome.publication?.commit).toBe(manifest.publication?.commit);
    expect(currentDetails).toMatch(/^\*\*published\*\* — run AAS-\S+ of toy/);
  });

  test('the published manifest carries the provenance: run, method commit, source digest, and per member its profile and reported model', async () => {
    const published = await readJson<{
      run: string;
      method: { commit: string | null; package: string };
      source: string;
      files: Record<string, string>;
      members: { role: string; profile: string; model: string; modelSource: string; sha256: string }[];
    }>(join(run.prepared.worktree, destinationOf(run.prepared), 'manifest.json'));
    expect(published.run).toBe(run.prepared.runId);
    expect(published.method).toEqual(run.prepared.parameters.method);
    expect(published.source).toBe(await sourceIdentity());
    expect(published.members.map((member) => [member.role, member.profile, member.model, member.modelSource])).toEqual(
      ROLES.map((role) => [role, 'fake', 'fake-model-1', 'harness']),
    );
    expect(Object.keys(published.files)).toHaveLength(ROLES.length);
  });

  test('the journal records each step once: begin, a write of each file, the commit, done', async () => {
    const manifest = await readJson<Manifest>(outcome.manifest!);
    const journal = await journalOf(run.prepared);
    expect(journal.map((entry) => entry.event).filter((event) => !['writing', 'written'].includes(event))).toEqual([
      'begin',
      'committing',
      'committed',
      'done',
    ]);
    expect(
      journal
        .filter((entry) => entry.event === 'written')
        .map((entry) => entry.path)
        .sort(),
    ).toEqual(await publishedPaths(run.prepared, manifest));
  });

  test('commonplace validate accepts the published artifact', async () => {
    const result = await runCli(['validate', destinationOf(run.prepared)], { cwd: run.prepared.worktree, reject: false });
    expect([result.exitCode, result.stdout]).toEqual([0, expect.stringMatching(/^12 files \(11 notes, 1 published manifest\): 0 failures, 0 warnings$/m)]);
  });

  test('commonplace validate checks a published artifact whole: an edited member and a broken citation are failures naming their files', async () => {
    const destination = join(run.prepared.worktree, destinationOf(run.prepared));
    const control = join(destination, 'lenses', 'control.md');
    const original = await readFile(control, 'utf8');
    await writeFile(control, original.replace('RT-CMP-loop', 'RT-CMP-gone'));
    try {
      const result = await runCli(['validate', destinationOf(run.prepared)], { cwd: run.prepared.worktree, reject: false });
      expect(result.exitCode).toBe(1);
      expect(result.stdout).toMatch(/lenses\/control\.md\n.*cited record RT-CMP-gone does not exist/);
      expect(result.stdout).toMatch(/manifest\.json\n.*lenses\/control\.md changed since publication/);
    } finally {
      await writeFile(control, original);
    }
  });

  test('integrate merges the published branch into a clean main, and a second integrate is a no-op', async () => {
    const located = await locateRun(run.checkout, run.prepared.runId);
    const merged = await integrateRun(run.checkout, located);
    expect(merged.outcome).toBe('merged');
    expect(await pathExists(join(run.checkout, destinationOf(run.prepared), 'manifest.json'))).toBe(true);
    const head = await git(run.checkout, 'rev-parse', 'HEAD');
    expect((await integrateRun(run.checkout, located)).outcome).toBe('already-integrated');
    expect(await git(run.checkout, 'rev-parse', 'HEAD')).toBe(head);
  });
});

test('integrate refuses when main changed a path the published run also wrote, naming it', async () => {
  const run = await prepared();
  const worker = await testWorker(env(), { stateDir: join(run.dir, 'state') });
  await worker.runUntil(async () => {
    const handle = await startAnalysis(env(), run.input);
    expect(((await handle.result()) as AnalysisResult).status).toBe('completed');
  });
  const clash = `${destinationOf(run.prepared)}/boundary.md`;
  await mkdir(join(run.checkout, destinationOf(run.prepared)), { recursive: true });
  await writeFile(join(run.checkout, clash), 'written on main\n');
  await git(run.checkout, 'add', '-A');
  await git(run.checkout, 'commit', '--quiet', '-m', 'main writes into the destination');
  const head = await git(run.checkout, 'rev-parse', 'HEAD');
  await expect(integrateRun(run.checkout, await locateRun(run.checkout, run.prepared.runId))).rejects.toThrow(IntegrateError);
  await expect(integrateRun(run.checkout, await locateRun(run.checkout, run.prepared.runId))).rejects.toThrow(
    new RegExp(`changed paths the run also changed .*: ${clash.replace(/[.]/g, '\\.')}$`),
  );
  expect(await git(run.checkout, 'rev-parse', 'HEAD')).toBe(head);
});

test('a destination changed on main since preparation stops the run with conflict and writes nothing; once main is restored, resume publishes', async () => {
  const run = await prepared();
  const clash = `${destinationOf(run.prepared)}/runtime-report.md`;
  await mkdir(join(run.checkout, destinationOf(run.prepared)), { recursive: true });
  await writeFile(join(run.checkout, clash), 'somebody else published here\n');
  await git(run.checkout, 'add', '-A');
  await git(run.checkout, 'commit', '--quiet', '-m', 'a file in the destination');
  const worker = await testWorker(env(), { stateDir: join(run.dir, 'state') });
  await worker.runUntil(async () => {
    const handle = await startAnalysis(env(), run.input);
    const progress = await stoppedRun(handle);
    expect(progress.status).toBe('stopped');
    expect(progress.stops.map((stop) => [stop.kind, stop.disposition])).toEqual([['conflict', 'operator']]);
    expect(progress.stops[0]?.reason).toContain(clash);
    expect(await pathExists(join(run.prepared.worktree, destinationOf(run.prepared)))).toBe(false);
    expect(await pathExists(publicationJournalFile(run.prepared.runDir))).toBe(false);
    expect(await branchCommits(run.prepared)).toEqual([]);
    // The manifest is written by the activity that records the stop: wait for it, not for a moment.
    await waitFor(
      'the manifest to say stopped',
      async () => (await readJson<Manifest>(join(run.prepared.runDir, 'manifest.json')).catch(() => undefined))?.status === 'stopped',
      60_000,
    );

    await git(run.checkout, 'rm', '--quiet', '-r', destinationOf(run.prepared));
    await git(run.checkout, 'commit', '--quiet', '-m', 'clear the destination');
    await handle.executeUpdate('resume');
    const outcome = (await handle.result()) as AnalysisResult;
    expect(outcome.status).toBe('completed');
    expect((await readJson<Manifest>(outcome.manifest!)).status).toBe('published');
  });
});
