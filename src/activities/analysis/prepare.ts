/** `prepare` needs no Temporal server; a refusal (a dirty checkout, a bad plan, an unknown source) leaves nothing behind. */
import { existsSync } from 'node:fs';
import { appendFile, mkdir, readFile, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../../fs/atomic.js';
import { loadProfiles, profilesSource } from '../../harness/load-profiles.js';
import { selectProfile } from '../../harness/profiles.js';
import { missingHarness } from '../../harness/installed.js';
import { packageRoot } from '../../paths.js';
import { loadPlan } from '../../analysis/load-plan.js';
import { buildManifest } from '../../analysis/decisions.js';
import type { RunParameters, SourceKind } from '../../analysis/parameters.js';
import { manifestFile, parametersFile, RUN_STATE, runDirOf } from '../../analysis/run-dir.js';
import { defaultWorktreesRoot } from '../../checkout/index.js';
import { nextRunId, runBranch, runDate, systemSlug } from '../../analysis/run-id.js';
import { methodIdentity } from './environment.js';
import { resetRunIds } from './reset.js';
import { git, GitError } from '../../fs/git.js';
import { dirtyPaths } from './git.js';
import { sha256File } from '../../fs/digest.js';

import { DEFAULT_PLAN } from './default-plan.js';

export { DEFAULT_PLAN };

export class PrepareError extends Error {
  override name = 'PrepareError';
}

export interface PrepareOptions {
  checkout: string;
  system: string;
  /** A Git URL, a path to a Git repository or a directory, or a bundle file. */
  source: string;
  revision?: string;
  profile: string;
  /** Repository-relative or absolute (inside the checkout). */
  plan?: string;
  /** Where the worktree goes (`<root>/<run-id>`); beside the checkout by default. */
  worktreesRoot?: string;
  /** Resolve relative source paths against this directory. */
  cwd?: string;
  now?: Date;
}

export interface PreparedRun {
  runId: string;
  branch: string;
  worktree: string;
  runDir: string;
  parameters: RunParameters;
}

/** Tells a Git URL, a Git repository, a directory and a bundle file apart. */
export async function classifySource(source: string, cwd: string): Promise<{ kind: SourceKind; location: string }> {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(source) || /^[^/\s]+@[^:\s]+:/.test(source)) return { kind: 'git', location: source };
  const absolute = path.resolve(cwd, source);
  const info = await stat(absolute).catch(() => undefined);
  if (info === undefined) throw new PrepareError(`--source ${source}: no such file or directory, and not a Git URL`);
  if (info.isFile()) return { kind: 'bundle', location: absolute };
  if (info.isDirectory()) return { kind: existsSync(path.join(absolute, '.git')) ? 'git' : 'directory', location: absolute };
  throw new PrepareError(`--source ${source}: neither a file nor a directory`);
}

async function existingRunIds(checkout: string, worktreesRoot: string): Promise<string[]> {
  const branches = await git(checkout, ['branch', '--list', 'analysis/AAS-*', '--format=%(refname:short)']);
  const dirs = await readdir(worktreesRoot).catch(() => [] as string[]);
  return [
    ...branches
      .split('\n')
      .filter(Boolean)
      .map((branch) => branch.replace(/^analysis\//, '')),
    ...dirs,
    ...(await resetRunIds(checkout)),
  ];
}

/** Keeps run state out of `git status` in the checkout and every worktree (they share info/exclude). */
async function excludeRunState(checkout: string): Promise<void> {
  const common = path.resolve(checkout, await git(checkout, ['rev-parse', '--git-common-dir']));
  const file = path.join(common, 'info', 'exclude');
  const text = await readFile(file, 'utf8').catch(() => '');
  if (text.split('\n').some((line) => line.trim() === `/${RUN_STATE}/`)) return;
  await mkdir(path.dirname(file), { recursive: true });
  await appendFile(file, `${text === '' || text.endsWith('\n') ? '' : '\n'}# commonplace run state\n/${RUN_STATE}/\n`);
}

/** Prepares a run: refuses a dirty checkout or a bad plan first, then makes the worktree and writes the run's parameters. */
export async function prepareRun(options: PrepareOptions): Promise<PreparedRun> {
  const checkout = path.resolve(options.checkout);
  const top = await git(checkout, ['rev-parse', '--show-toplevel']).catch(() => undefined);
  if (top === undefined || path.resolve(top) !== checkout) throw new PrepareError(`${checkout} is not the root of a Git checkout`);
  const dirty = await dirtyPaths(checkout);
  if (dirty.length > 0) {
    throw new PrepareError(
      `the checkout has uncommitted changes, and a run is prepared from the last commit: ${dirty.slice(0, 20).join(', ')}${dirty.length > 20 ? ` and ${dirty.length - 20} more` : ''}; commit or stash them first`,
    );
  }
  const slug = systemSlug(options.system);
  if (slug === '') throw new PrepareError(`system name "${options.system}" has no letters or digits to make a run ID from`);

  const plan = await loadPlan(checkout, options.plan ?? DEFAULT_PLAN);
  const source = await classifySource(options.source, options.cwd ?? process.cwd());
  try {
    const profilesFile = profilesSource({ checkout });
    const profile = selectProfile(loadProfiles(profilesFile), options.profile, profilesFile);
    const missing = missingHarness(profile, path.join(packageRoot(), 'bin', 'fake-harness.js'));
    if (missing !== undefined) throw new PrepareError(missing);
  } catch (error) {
    throw new PrepareError((error as Error).message);
  }
  const method = await methodIdentity();
  const commit = await git(checkout, ['rev-parse', 'HEAD']);
  const worktreesRoot = path.resolve(options.worktreesRoot ?? defaultWorktreesRoot(checkout));
  await mkdir(worktreesRoot, { recursive: true });

  const date = runDate(options.now ?? new Date());
  let runId = '';
  let worktree = '';
  for (let tries = 0; ; tries += 1) {
    runId = nextRunId(date, slug, await existingRunIds(checkout, worktreesRoot));
    worktree = path.join(worktreesRoot, runId);
    try {
      await git(checkout, ['worktree', 'add', '--quiet', '-b', runBranch(runId), worktree, commit]);
      break;
    } catch (error) {
      // Another prepare took this ID between our look and our branch: take the next one.
      if (!(error instanceof GitError) || tries >= 5 || !/already exists/.test(error.message)) throw error;
    }
  }

  const runDir = runDirOf(worktree, runId);
  try {
    await excludeRunState(checkout);
    const parameters: RunParameters = {
      run: runId,
      system: options.system,
      source: { ...source, ...(options.revision !== undefined && { revision: options.revision }) },
      profile: options.profile,
      checkout,
      worktree,
      branch: runBranch(runId),
      preparationCommit: commit,
      method,
      plan: plan.file,
      planSha256: plan.sha256,
      layout: plan.layout.file,
      layoutSha256: plan.layout.sha256,
      preparedAt: (options.now ?? new Date()).toISOString(),
    };
    const manifest = buildManifest({ runId, order: [], parameters }, {}, 'prepared', parameters.preparedAt);
    await writeFileAtomic(parametersFile(runDir), `${JSON.stringify(parameters, null, 2)}\n`);
    await writeFileAtomic(manifestFile(runDir), `${JSON.stringify(manifest, null, 2)}\n`);
    if ((await sha256File(path.join(worktree, plan.file))) !== plan.sha256)
      throw new PrepareError(`the plan in the new worktree differs from ${plan.file} in the checkout`);
    return { runId, branch: runBranch(runId), worktree, runDir, parameters };
  } catch (error) {
    await git(checkout, ['worktree', 'remove', '--force', worktree]).catch(() => undefined);
    await git(checkout, ['branch', '-D', runBranch(runId)]).catch(() => undefined);
    throw error;
  }
}
