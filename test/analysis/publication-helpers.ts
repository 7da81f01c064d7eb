// What the publication files share: a toy run prepared for publishing, and what its publication left behind (the
// journal, the run branch's commits, the paths it writes).
import type { WorkflowHandle } from '@temporalio/client';
import { readFile } from 'node:fs/promises';
import type { PreparedRun } from '../../src/activities/analysis/prepare.js';
import type { Manifest } from '../../src/analysis/manifest.js';
import type { AnalysisProgress } from '../../src/analysis/progress.js';
import { publicationJournalFile } from '../../src/analysis/run-dir.js';
import { analysisInput, git, prepareToy, progressUntil, scratch, toyCheckout, toyProfiles, toyScenario } from './helpers.js';

export const destinationOf = (prepared: PreparedRun) => `kb/analyses/toy/${prepared.runId}`;

export interface JournalLine {
  event: string;
  path?: string;
  commit?: string;
}
export const journalOf = async (prepared: PreparedRun): Promise<JournalLine[]> =>
  (await readFile(publicationJournalFile(prepared.runDir), 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as JournalLine);

/** The commits the run branch has beyond the preparation commit, and the paths each touched. */
export async function branchCommits(prepared: PreparedRun): Promise<{ commit: string; paths: string[] }[]> {
  const log = await git(prepared.worktree, 'log', '--format=%H', `${prepared.parameters.preparationCommit}..HEAD`);
  const commits = log.split('\n').filter(Boolean);
  return Promise.all(
    commits.map(async (commit) => ({
      commit,
      paths: (await git(prepared.worktree, 'show', '--name-only', '--format=', commit)).split('\n').filter(Boolean).sort(),
    })),
  );
}

/** Every file publication writes, repository-relative: the members at their layout paths and the published manifest. */
export async function publishedPaths(prepared: PreparedRun, manifest: Manifest): Promise<string[]> {
  return [...Object.keys(manifest.files).map((file) => `${destinationOf(prepared)}/${file}`), `${destinationOf(prepared)}/manifest.json`].sort();
}

export interface Run {
  checkout: string;
  prepared: PreparedRun;
  dir: string;
  input: ReturnType<typeof analysisInput>;
}

export async function prepared(): Promise<Run> {
  const checkout = await toyCheckout();
  const run = await prepareToy(checkout);
  const dir = await scratch();
  const { env: fakeEnv } = await toyScenario(dir, run);
  return { checkout, prepared: run, dir, input: analysisInput(run, await toyProfiles(dir), fakeEnv) };
}

/** The run once it has stopped or completed. */
export async function stoppedRun(handle: WorkflowHandle): Promise<AnalysisProgress> {
  return progressUntil(handle, (progress) => progress.status === 'stopped' || progress.status === 'completed', 180_000);
}
