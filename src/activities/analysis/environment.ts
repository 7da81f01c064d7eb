/** The environment a run is pinned to (HEAD, a clean tree, the method, startup files, plan and layout); a changed one stops the run until restored. */
import { existsSync, readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { packageRoot } from '../../paths.js';
import type { RunParameters } from '../../analysis/parameters.js';
import { RUN_STATE } from '../../analysis/run-dir.js';
import { git, gitOk } from '../../fs/git.js';
import { dirtyPaths } from './git.js';
import { sha256 } from '../../fs/digest.js';
import { pathExists } from '../../fs/exists.js';

/** Files a harness loads as standing instructions when it starts in (or below) a directory. */
export const STARTUP_FILES = ['AGENTS.md', 'AGENTS.override.md', 'CLAUDE.md', 'CLAUDE.local.md'];

export interface MethodIdentity {
  package: string;
  version: string;
  /** Null for an installed package. */
  commit: string | null;
}

export async function methodIdentity(): Promise<MethodIdentity> {
  const root = packageRoot();
  const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { name: string; version: string };
  const commit = existsSync(path.join(root, '.git')) ? await git(root, ['rev-parse', 'HEAD']).catch(() => null) : null;
  return { package: manifest.name, version: manifest.version, commit };
}

export interface EnvironmentReport {
  ok: boolean;
  /** One line per change: what it was and what it is. */
  problems: string[];
  checkedAt: string;
}

/** While the run publishes, its writes under the destination (and HEAD one commit past preparation touching only those) are no change. */
export async function checkEnvironment(
  parameters: RunParameters,
  runDir: string,
  method?: MethodIdentity,
  options: { publishing?: string } = {},
): Promise<EnvironmentReport> {
  const worktree = parameters.worktree;
  const problems: string[] = [];
  const report = () => ({ ok: problems.length === 0, problems, checkedAt: new Date().toISOString() });
  if (!(await pathExists(path.join(worktree, '.git')))) {
    problems.push(`the run's worktree ${worktree} is gone (git worktree list)`);
    return report();
  }
  const destination = options.publishing;
  const published = (file: string) => destination !== undefined && file.startsWith(`${destination}/`);
  const head = await git(worktree, ['rev-parse', 'HEAD']).catch(() => undefined);
  if (
    head !== parameters.preparationCommit &&
    !(head !== undefined && destination !== undefined && (await isPublicationCommit(worktree, parameters.preparationCommit, head, published)))
  ) {
    problems.push(`HEAD of ${worktree} is ${head ?? 'unreadable'}, but the run was prepared at ${parameters.preparationCommit}`);
  }
  const dirty = (await dirtyPaths(worktree)).filter((file) => !published(file));
  if (dirty.length > 0) {
    problems.push(
      `the worktree has changes outside run state: ${dirty.slice(0, 10).join(', ')}${dirty.length > 10 ? ` and ${dirty.length - 10} more` : ''} (git -C ${worktree} status)`,
    );
  }
  const running = method ?? (await methodIdentity());
  const pinned = parameters.method;
  if (running.package !== pinned.package || running.version !== pinned.version || running.commit !== pinned.commit) {
    problems.push(
      `the running package is ${running.package}@${running.version} (commit ${running.commit ?? 'none'}), but the run was prepared with ${pinned.package}@${pinned.version} (commit ${pinned.commit ?? 'none'})`,
    );
  }

  // Startup files: the committed ones at the root, none in the run state a launch starts under, none ignored elsewhere.
  for (const name of STARTUP_FILES) {
    if ((await pathExists(path.join(worktree, name))) && !(await gitOk(worktree, ['ls-files', '--error-unmatch', '--', name]))) {
      problems.push(`startup file ${name} in the worktree is not committed (a worker would load it)`);
    }
  }
  const ignored = (await git(worktree, ['ls-files', '-z', '--others', '--ignored', '--exclude-standard', '--', '.', `:(exclude)${RUN_STATE}`]))
    .split('\0')
    .filter((file) => file !== '' && STARTUP_FILES.includes(path.basename(file)));
  for (const file of ignored) problems.push(`startup file ${file} in the worktree is ignored, not committed (a worker would load it)`);
  for (const dir of await runStateChain(worktree, runDir)) {
    for (const name of [...STARTUP_FILES, '.claude']) {
      if (await pathExists(path.join(dir, name)))
        problems.push(`${path.relative(worktree, path.join(dir, name))} appeared in run state, where every launch would load it`);
    }
  }

  for (const [what, file, digest] of [
    ['plan', parameters.plan, parameters.planSha256],
    ['layout', parameters.layout, parameters.layoutSha256],
  ] as const) {
    const bytes = await readFile(path.join(worktree, file)).catch(() => undefined);
    if (bytes === undefined) problems.push(`the ${what} ${file} is gone from the worktree`);
    else if (sha256(bytes) !== digest)
      problems.push(`the ${what} ${file} changed since prepare (sha256 ${sha256(bytes).slice(0, 12)}, prepared ${digest.slice(0, 12)})`);
  }
  return report();
}

/** Whether `head` is one commit on top of the preparation commit that changes only published paths. */
async function isPublicationCommit(worktree: string, preparation: string, head: string, published: (file: string) => boolean): Promise<boolean> {
  const parent = await git(worktree, ['rev-parse', `${head}^`]).catch(() => undefined);
  if (parent !== preparation) return false;
  const changed = (await git(worktree, ['diff', '--name-only', '-z', preparation, head])).split('\0').filter(Boolean);
  return changed.length > 0 && changed.every(published);
}

/** A startup file in any directory between the worktree and a launch directory would reach the launch. */
async function runStateChain(worktree: string, runDir: string): Promise<string[]> {
  const chain: string[] = [];
  let dir = runDir;
  while (dir.startsWith(worktree) && dir !== worktree) {
    chain.push(dir);
    dir = path.dirname(dir);
  }
  const launches = path.join(runDir, 'launches');
  chain.push(launches);
  const roles = await readdir(launches, { withFileTypes: true }).catch(() => []);
  for (const role of roles) if (role.isDirectory()) chain.push(path.join(launches, role.name));
  return chain;
}
