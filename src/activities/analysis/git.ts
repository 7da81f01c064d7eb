import { RUN_STATE } from '../../analysis/run-dir.js';
import { git } from '../../fs/git.js';

/** Paths that differ from HEAD or are untracked, outside run state. */
export async function dirtyPaths(worktree: string): Promise<string[]> {
  const out = await git(worktree, ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--', '.', `:(exclude)${RUN_STATE}`]);
  const paths: string[] = [];
  const entries = out.split('\0').filter(Boolean);
  for (let index = 0; index < entries.length; index += 1) {
    const entry = entries[index] ?? '';
    const status = entry.slice(0, 2);
    paths.push(entry.slice(3));
    if (status.startsWith('R') || status.startsWith('C')) index += 1; // the rename's source follows
  }
  return paths;
}

/** The worktrees of a repository, with the branch each has checked out. */
export async function worktrees(repo: string): Promise<{ path: string; head: string | undefined; branch: string | undefined }[]> {
  const out = await git(repo, ['worktree', 'list', '--porcelain']);
  const found: { path: string; head: string | undefined; branch: string | undefined }[] = [];
  for (const block of out.split('\n\n')) {
    const lines = block.split('\n');
    const path = lines.find((line) => line.startsWith('worktree '))?.slice('worktree '.length);
    if (path === undefined) continue;
    const head = lines.find((line) => line.startsWith('HEAD '))?.slice(5);
    const branch = lines.find((line) => line.startsWith('branch '))?.slice('branch refs/heads/'.length);
    found.push({ path, head, branch });
  }
  return found;
}
