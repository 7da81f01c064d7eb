/**
 * The one way the project runs Git: `git -C <dir> <args>` as a subprocess, never prompting, never
 * taking optional locks (a status read must not race a user's own Git), with C-locale messages.
 * Besides the launch activity's harness, Git is the only program the sources start.
 */
import { spawn } from 'node:child_process';

const GIT_ENV = { GIT_TERMINAL_PROMPT: '0', GIT_OPTIONAL_LOCKS: '0', LC_ALL: 'C' };

/** A Git command that failed: the command, the directory it ran in, and the end of what Git said. */
export class GitError extends Error {
  override name = 'GitError';
  constructor(
    readonly command: string,
    readonly cwd: string,
    readonly stderr: string,
    readonly exitCode: number | undefined,
    options?: ErrorOptions,
  ) {
    super(`${command} (in ${cwd}): ${lastLine(stderr) ?? 'failed'}`, options);
  }
}

/** One run of Git, succeeded or not (`exitCode` is undefined when git could not be started); stdout without its final newline. */
export interface GitResult {
  readonly command: string;
  readonly cwd: string;
  readonly stdout: string;
  readonly stderr: string;
  readonly exitCode: number | undefined;
}

const lastLine = (text: string) =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .at(-1);

/** Runs `git <args>` in `cwd` and reports how it ended, whatever the exit code: for callers that read a failure as an answer. */
export function runGit(cwd: string, args: readonly string[]): Promise<GitResult> {
  const command = `git ${args.join(' ')}`;
  return new Promise((resolve) => {
    // node:child_process directly: Git runs often (the checkout guard's reads), and a CLI command should not load a process library for it.
    const child = spawn('git', ['-C', cwd, ...args], { env: { ...process.env, ...GIT_ENV }, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    let failedToStart: Error | undefined;
    child.on('error', (error) => {
      failedToStart = error;
    });
    child.on('close', (code) => {
      const stdout = Buffer.concat(out)
        .toString('utf8')
        .replace(/\r?\n$/, '');
      // Git that could not be started at all has no stderr of its own: say why it did not start.
      const stderr =
        Buffer.concat(err)
          .toString('utf8')
          .replace(/\r?\n$/, '') || (failedToStart ? `${command} could not start: ${failedToStart.message}` : '');
      resolve({ command, cwd, stdout, stderr, exitCode: failedToStart ? undefined : (code ?? undefined) });
    });
  });
}

/** Runs `git <args>` in `cwd` and returns its stdout (final newline kept off); a non-zero exit is a GitError naming the command, the directory and Git's last line. */
export async function git(cwd: string, args: readonly string[], options: { allowFailure?: boolean } = {}): Promise<string> {
  const result = await runGit(cwd, args);
  if (result.exitCode !== 0 && !options.allowFailure) throw new GitError(result.command, cwd, result.stderr || result.stdout, result.exitCode);
  return result.stdout;
}

/** Whether git succeeds (exit 0) for these arguments. */
export async function gitOk(cwd: string, args: readonly string[]): Promise<boolean> {
  return (await runGit(cwd, args)).exitCode === 0;
}
