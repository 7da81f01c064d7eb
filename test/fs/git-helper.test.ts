// A worker runs Git through a helper process (bin/git-runner.js), not by forking itself: the answers
// are Git's own, commands at once stay apart, a helper that dies fails only what it held, and the
// helper neither keeps its process alive nor outlives it.
import { describe, expect, test } from '@jest/globals';
import { execa } from 'execa';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { git, GitError, runGit, runGitThroughHelper, type GitResult } from '../../src/fs/git.js';
import { packageRoot } from '../../src/paths.js';
import { scratch, waitFor } from '../helpers/fake.js';

/** The processes whose environment carries `mark`, and whose command line names the helper when `helperOnly`. */
async function processesMarked(mark: string, helperOnly = false): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const environ = await readFile(`/proc/${entry}/environ`, 'utf8').catch(() => '');
    if (!environ.split('\0').includes(`COMMONPLACE_TEST_MARK=${mark}`)) continue;
    if (helperOnly && !(await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '')).includes('git-runner.js')) continue;
    found.push(Number(entry));
  }
  return found;
}

// This file's helpers carry this mark (a helper inherits the environment of the process that starts it):
// helpers of other files run in the same jest worker are not counted.
const fileMark = randomUUID();
process.env.COMMONPLACE_TEST_MARK = fileMark;
const helpers = () => processesMarked(fileMark, true);

async function repository(message: string): Promise<string> {
  const dir = await scratch();
  await git(dir, ['init', '-q']);
  await writeFile(join(dir, 'note.md'), `${message}\n`);
  await git(dir, ['add', 'note.md']);
  await git(dir, ['-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', message]);
  return dir;
}

describe('Git through the helper process', () => {
  test('answers as Git started directly does: output, exit codes, the last line of a failure, a directory that does not exist', async () => {
    const repo = await repository('first');
    const plain = await scratch();
    const missing = join(plain, 'missing');
    const commands: [string, string[]][] = [
      [repo, ['log', '--format=%s%n%an']],
      [repo, ['show', 'HEAD:note.md']],
      [repo, ['rev-parse', 'HEAD~5']],
      [plain, ['rev-parse', '--git-dir']],
      [missing, ['status']],
    ];
    const direct: GitResult[] = [];
    for (const [cwd, args] of commands) direct.push(await runGit(cwd, args));
    expect(await helpers()).toEqual([]);

    runGitThroughHelper();
    const helped: GitResult[] = [];
    for (const [cwd, args] of commands) helped.push(await runGit(cwd, args));
    expect(helped).toEqual(direct);
    expect(helped[0]).toMatchObject({ stdout: 'first\nt', exitCode: 0 });
    expect(helped[3]).toMatchObject({ exitCode: 128, stdout: '' });
    expect(await helpers()).toHaveLength(1);
    const error = await git(missing, ['status']).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(GitError);
    expect((error as GitError).message).toMatch(new RegExp(`^git status \\(in ${missing}\\): fatal: cannot change to`));
  });

  test('forty commands at once are each answered with their own output, by one helper', async () => {
    runGitThroughHelper();
    const repos = await Promise.all(Array.from({ length: 8 }, (_, index) => repository(`commit ${index}`)));
    const asked = Array.from({ length: 40 }, (_, index) => ({ repo: repos[index % repos.length]!, expected: `commit ${index % repos.length}` }));
    const answers = await Promise.all(asked.map(({ repo }) => git(repo, ['log', '-1', '--format=%s'])));
    expect(answers).toEqual(asked.map(({ expected }) => expected));
    expect(await helpers()).toHaveLength(1);
  });

  test('a helper that dies fails the commands it held as Git that did not start, and the next command starts another', async () => {
    runGitThroughHelper();
    const repo = await repository('held');
    const fifo = join(await scratch(), 'release');
    await promisify(execFile)('mkfifo', [fifo]);
    // Git runs an alias that waits on the FIFO: the command is held until the test writes to it.
    const held = runGit(repo, ['-c', `alias.hold=!cat ${fifo}`, 'hold']);
    let helper: number[] = [];
    await waitFor('the helper to hold the command', async () => (helper = await helpers()).length === 1);
    process.kill(helper[0]!, 'SIGKILL');
    const result = await held;
    expect(result.exitCode).toBeUndefined();
    expect(result.stderr).toMatch(/could not start: the Git helper process \(bin\/git-runner\.js\) ended before Git did/);
    await writeFile(fifo, 'go\n');
    expect(await git(repo, ['log', '-1', '--format=%s'])).toBe('held');
    const next = await helpers();
    expect(next).toHaveLength(1);
    expect(next[0]).not.toBe(helper[0]);
  });

  test('an idle helper ends by itself, and a later command starts another', async () => {
    runGitThroughHelper();
    const repo = await repository('idle');
    expect(await git(repo, ['log', '-1', '--format=%s'])).toBe('idle');
    const [first] = await helpers();
    expect(first).toBeDefined();
    await waitFor('the idle helper to end', async () => !(await helpers()).includes(first!));
    expect(await git(repo, ['log', '-1', '--format=%s'])).toBe('idle');
    expect(await helpers()).toHaveLength(1);
  });

  test('a process whose Git went through the helper ends when its work is done, and its helper with it', async () => {
    const repo = await repository('last');
    const mark = randomUUID();
    const module = join(packageRoot(), 'dist', 'src', 'fs', 'git.js');
    const script = `const { git, runGitThroughHelper } = await import(${JSON.stringify(module)}); runGitThroughHelper(); console.log(await git(${JSON.stringify(repo)}, ['log', '-1', '--format=%s']));`;
    const child = await execa('node', ['--input-type=module', '-e', script], { env: { COMMONPLACE_TEST_MARK: mark }, reject: false });
    expect(child).toMatchObject({ exitCode: 0, stdout: 'last' });
    await waitFor('the helper of the ended process to end', async () => (await processesMarked(mark)).length === 0);
  });
});
