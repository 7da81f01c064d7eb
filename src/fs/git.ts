/** The one way the project runs Git: never prompting, never taking optional locks (a status read must not race the user's own Git), C locale. */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { packageRoot } from '../paths.js';

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

/** `exitCode` undefined: git could not be started; stdout without its final newline. */
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

/** As started here or by the helper. */
interface GitEnd {
  readonly stdout: string;
  readonly stderr: string;
  readonly code: number | null;
  readonly error?: string;
}

/** Whatever the exit code: for callers that read a failure as an answer. */
export async function runGit(cwd: string, args: readonly string[]): Promise<GitResult> {
  const command = `git ${args.join(' ')}`;
  const env = { ...process.env, ...GIT_ENV };
  const end = helperWanted ? await (helper ??= new GitHelper()).run(cwd, args, env) : await startGit(cwd, args, env);
  return {
    command,
    cwd,
    stdout: end.stdout.replace(/\r?\n$/, ''),
    // Git that could not be started at all has no stderr of its own: say why it did not start.
    stderr: end.stderr.replace(/\r?\n$/, '') || (end.error !== undefined ? `${command} could not start: ${end.error}` : ''),
    exitCode: end.error !== undefined ? undefined : (end.code ?? undefined),
  };
}

/** Git started by this process. */
function startGit(cwd: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<GitEnd> {
  return new Promise((resolve) => {
    // node:child_process directly: Git runs often (the checkout guard's reads), and a CLI command should not load a process library for it.
    const child = spawn('git', ['-C', cwd, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    let error: string | undefined;
    child.on('error', (cause) => {
      error = cause.message;
    });
    child.on('close', (code) =>
      resolve({ stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), code, ...(error !== undefined && { error }) }),
    );
  });
}

let helperWanted = false;
let helper: GitHelper | undefined;

/** For a long-lived worker, whose size makes each fork dear (bin/git-runner.js); a short CLI command keeps starting Git itself. */
export function runGitThroughHelper(): void {
  helperWanted = true;
}

type HelperReply = GitEnd & { readonly id: number };

const HELPER_IDLE_MS = 5000;

class GitHelper {
  private readonly child: ChildProcessByStdio<Writable, Readable, null>;
  private readonly pending = new Map<number, (reply: HelperReply | undefined) => void>();
  private nextId = 0;
  private idle: NodeJS.Timeout | undefined;
  private gone = false;

  constructor() {
    this.child = spawn(process.execPath, [join(packageRoot(), 'bin', 'git-runner.js')], { env: process.env, stdio: ['pipe', 'pipe', 'inherit'] });
    this.child.unref();
    this.child.stdout.setEncoding('utf8');
    let partial = '';
    this.child.stdout.on('data', (chunk: string) => {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) if (line) this.answer(JSON.parse(line) as HelperReply);
    });
    // An unwritable pipe is the helper's end, reported by 'close' below.
    this.child.stdin.on('error', () => undefined);
    this.child.on('error', () => this.end());
    this.child.on('close', () => this.end());
    this.hold(false);
  }

  run(cwd: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<GitEnd> {
    clearTimeout(this.idle);
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, (reply) =>
        resolve(reply ?? { stdout: '', stderr: '', code: null, error: 'the Git helper process (bin/git-runner.js) ended before Git did' }),
      );
      this.hold(true);
      this.child.stdin.write(`${JSON.stringify({ id, cwd, args, env })}\n`);
    });
  }

  private answer(reply: HelperReply): void {
    const settle = this.pending.get(reply.id);
    this.pending.delete(reply.id);
    settle?.(reply);
    if (this.pending.size > 0) return;
    this.hold(false);
    // Idle: close its stdin, and it ends; the next command starts another.
    this.idle = setTimeout(() => {
      if (helper === this) helper = undefined;
      this.child.stdin.end();
    }, HELPER_IDLE_MS).unref();
  }

  /** Keeps this process alive while Git commands are out, and not otherwise. */
  private hold(busy: boolean): void {
    for (const stream of [this.child.stdin, this.child.stdout] as unknown as { ref(): void; unref(): void }[]) {
      if (busy) stream.ref();
      else stream.unref();
    }
  }

  private end(): void {
    if (this.gone) return;
    this.gone = true;
    clearTimeout(this.idle);
    if (helper === this) helper = undefined;
    for (const settle of this.pending.values()) settle(undefined);
    this.pending.clear();
  }
}

/** A non-zero exit is a GitError naming the command, the directory and Git's last line. */
export async function git(cwd: string, args: readonly string[], options: { allowFailure?: boolean } = {}): Promise<string> {
  const result = await runGit(cwd, args);
  if (result.exitCode !== 0 && !options.allowFailure) throw new GitError(result.command, cwd, result.stderr || result.stdout, result.exitCode);
  return result.stdout;
}

/** Whether git succeeds (exit 0) for these arguments. */
export async function gitOk(cwd: string, args: readonly string[]): Promise<boolean> {
  return (await runGit(cwd, args)).exitCode === 0;
}
