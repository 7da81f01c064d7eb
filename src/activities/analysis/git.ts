/**
 * Git, run as a subprocess: the analysis's worktrees, branches and environment checks. No harness
 * is started here (the launch activity is the only place one is).
 */
import { execa } from 'execa';

export class GitError extends Error {
  override name = 'GitError';
  constructor(
    message: string,
    readonly stderr: string,
    readonly exitCode: number | undefined,
  ) {
    super(message);
  }
}

/** Runs `git <args>` in `cwd` and returns its stdout (final newline kept off); a failure names the command and git's own message. */
export async function git(cwd: string, args: string[], options: { allowFailure?: boolean } = {}): Promise<string> {
  const result = await execa('git', args, {
    cwd,
    reject: false,
    stripFinalNewline: true,
    env: { GIT_TERMINAL_PROMPT: '0', GIT_OPTIONAL_LOCKS: '0', LC_ALL: 'C' },
  });
  if (result.failed && !options.allowFailure) {
    const message = (result.stderr || result.stdout || (result as { shortMessage?: string }).shortMessage || '').split('\n').filter(Boolean).slice(-1)[0] ?? 'failed';
    throw new GitError(`git ${args.join(' ')} (in ${cwd}): ${message}`, result.stderr, result.exitCode);
  }
  return result.stdout;
}

/** Whether git succeeds (exit 0) for these arguments. */
export async function gitOk(cwd: string, args: string[]): Promise<boolean> {
  const result = await execa('git', args, { cwd, reject: false, env: { GIT_TERMINAL_PROMPT: '0', GIT_OPTIONAL_LOCKS: '0' } });
  return result.exitCode === 0;
}

/** Run state lives under this directory of a worktree; status checks leave it out. */
export const RUN_STATE_DIR = '.commonplace';

/** Paths that differ from HEAD or are untracked, outside run state (`git status --porcelain`, every untracked file listed). */
export async function dirtyPaths(worktree: string): Promise<string[]> {
  const out = await git(worktree, ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--', '.', `:(exclude)${RUN_STATE_DIR}`]);
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
