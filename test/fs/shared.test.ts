import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sha256, sha256File } from '../../src/fs/digest.js';
import { git, GitError, gitOk, runGit } from '../../src/fs/git.js';
import { get, getText, put, storedFile } from '../../src/fs/store.js';
import { scratch } from '../helpers/fake.js';

describe('the shared digest', () => {
  test('a string is hashed as its UTF-8 bytes, and a file as its bytes', async () => {
    const dir = await scratch();
    await writeFile(join(dir, 'a.txt'), 'café\n');
    expect(sha256('café\n')).toBe(sha256(Buffer.from('café\n', 'utf8')));
    expect(await sha256File(join(dir, 'a.txt'))).toBe(sha256('café\n'));
    expect(sha256('hello\n')).toBe('5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03');
  });
});

describe('the shared content store', () => {
  test('an entry lives at store/sha256/<first two hex digits>/<digest>, and an altered entry is rewritten by the next put', async () => {
    const runDir = await scratch();
    const digest = await put(runDir, 'text\n');
    expect(storedFile(runDir, digest)).toBe(join(runDir, 'store', 'sha256', digest.slice(0, 2), digest));
    await writeFile(storedFile(runDir, digest), 'other\n');
    await expect(getText(runDir, digest)).rejects.toThrow(/was altered/);
    expect(await put(runDir, 'text\n')).toBe(digest);
    expect(await getText(runDir, digest)).toBe('text\n');
  });

  test("only the shared layout is read: a text kept flat outside it is no entry, and the error names the layout's file", async () => {
    const runDir = await scratch();
    const digest = sha256('old review text\n');
    await mkdir(join(runDir, 'store'), { recursive: true });
    await writeFile(join(runDir, 'store', digest), 'old review text\n');
    await expect(get(runDir, digest)).rejects.toThrow(`the run's store has no entry ${digest.slice(0, 12)} (${storedFile(runDir, digest)})`);
    await put(runDir, 'old review text\n');
    expect(await getText(runDir, digest)).toBe('old review text\n');
  });
});

describe('the Git runner', () => {
  test('a failed command is a GitError naming the command, the directory and the last line Git wrote', async () => {
    const dir = await scratch();
    const error = await git(dir, ['rev-parse', 'HEAD']).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(GitError);
    expect(error).toMatchObject({ command: 'git rev-parse HEAD', cwd: dir, exitCode: 128 });
    expect((error as GitError).message).toMatch(new RegExp(`^git rev-parse HEAD \\(in ${dir}\\): fatal: not a git repository`));
  });

  test('runGit reports a failure as a result, gitOk as false, and git returns stdout without its final newline', async () => {
    const dir = await scratch();
    expect(await gitOk(dir, ['rev-parse', '--git-dir'])).toBe(false);
    expect(await runGit(dir, ['rev-parse', '--git-dir'])).toMatchObject({ exitCode: 128, stdout: '' });
    await git(dir, ['init', '-q']);
    expect(await git(dir, ['rev-parse', '--git-dir'])).toBe('.git');
    expect(await gitOk(dir, ['rev-parse', '--git-dir'])).toBe(true);
  });

  test('a directory that does not exist is a GitError, not a crash', async () => {
    const dir = join(await scratch(), 'missing');
    await expect(git(dir, ['status'])).rejects.toThrow(new RegExp(`^git status \\(in ${dir}\\): fatal: cannot change to`));
  });
});
