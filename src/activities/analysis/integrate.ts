/** Merges a published run's branch only when the paths it changed since the merge base are untouched on main since then. */
import { readFile } from 'node:fs/promises';
import type { Manifest } from '../../analysis/manifest.js';
import { manifestFile } from '../../analysis/run-dir.js';
import { runBranch } from '../../analysis/run-id.js';
import { git, gitOk } from '../../fs/git.js';
import { dirtyPaths } from './git.js';
import type { LocatedRun } from './runs.js';

export class IntegrateError extends Error {
  override name = 'IntegrateError';
}

export type Integration =
  | { readonly outcome: 'merged'; readonly into: string; readonly commit: string; readonly paths: readonly string[] }
  | { readonly outcome: 'already-integrated'; readonly into: string };

const changedPaths = async (repo: string, from: string, to: string) => (await git(repo, ['diff', '--name-only', '-z', from, to])).split('\0').filter(Boolean);

export async function integrateRun(checkout: string, run: LocatedRun): Promise<Integration> {
  const branch = runBranch(run.runId);
  const manifest = JSON.parse(await readFile(manifestFile(run.runDir), 'utf8')) as Manifest;
  if (manifest.status !== 'published') {
    throw new IntegrateError(
      `run ${run.runId} is not published (its manifest ${manifestFile(run.runDir)} says ${manifest.status}): only a published run's branch is merged`,
    );
  }
  const into = await git(checkout, ['symbolic-ref', '--short', '-q', 'HEAD']).catch(() => '');
  if (into === '') throw new IntegrateError(`the checkout ${checkout} is not on a branch (detached HEAD): check out main first`);
  if (into === branch) throw new IntegrateError(`the checkout ${checkout} has the run's own branch ${branch} checked out: check out main first`);
  if (await gitOk(checkout, ['merge-base', '--is-ancestor', branch, 'HEAD'])) return { outcome: 'already-integrated', into };
  const dirty = await dirtyPaths(checkout);
  if (dirty.length > 0)
    throw new IntegrateError(
      `the checkout has uncommitted changes, and a merge needs a clean tree: ${dirty.slice(0, 20).join(', ')}; commit or stash them first`,
    );
  const base = await git(checkout, ['merge-base', 'HEAD', branch]);
  const ours = new Set(await changedPaths(checkout, base, 'HEAD'));
  const theirs = await changedPaths(checkout, base, branch);
  const conflicting = theirs.filter((file) => ours.has(file));
  if (conflicting.length > 0) {
    throw new IntegrateError(`${into} changed paths the run also changed since ${base.slice(0, 12)}, so ${branch} is not merged: ${conflicting.join(', ')}`);
  }
  try {
    await git(checkout, ['merge', '--no-ff', '--no-edit', '-m', `Integrate analysis ${run.runId} (${run.parameters.system})`, branch]);
  } catch (error) {
    await git(checkout, ['merge', '--abort'], { allowFailure: true });
    throw new IntegrateError(`merging ${branch} into ${into} failed and was aborted: ${(error as Error).message}`);
  }
  return { outcome: 'merged', into, commit: await git(checkout, ['rev-parse', 'HEAD']), paths: theirs };
}
