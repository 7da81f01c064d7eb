// Machine-local state (.commonplace/, kb/reports/state/) is never the KB's: Git is made to ignore it,
// validate does not walk into it, and a checkout whose only changes are review results prepares.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ignoreMachineLocal } from '../../src/kb/machine-local.js';
import { git, toyCheckout, toyPrepareArgs } from '../analysis/helpers.js';
import { runCli } from '../helpers/cli.js';
import { scratch } from '../helpers/fake.js';

const resultFile = 'kb/reports/state/review/results/notes/a-note/sentence/framing-mismatch.md';

async function withResultFile(checkout: string): Promise<void> {
  await mkdir(join(checkout, resultFile, '..'), { recursive: true });
  // A result file as a sweep writes it: frontmatter without a KB type.
  await writeFile(join(checkout, resultFile), '---\nnote: kb/notes/a-note.md\ncriterion: sentence/framing-mismatch\n---\n\nResult: pass\n');
}

describe('ignoreMachineLocal', () => {
  test("adds both directories to the repository's info/exclude once, and Git then lists none of their files", async () => {
    const checkout = await toyCheckout({ stateIgnored: false });
    await withResultFile(checkout);
    const first = await ignoreMachineLocal(checkout);
    const second = await ignoreMachineLocal(checkout);
    expect(first?.file).toBe(join(checkout, '.git', 'info', 'exclude'));
    expect(first?.added).toEqual(expect.arrayContaining(['/kb/reports/state/']));
    expect(second?.added).toEqual([]);
    expect(await readFile(join(checkout, '.git', 'info', 'exclude'), 'utf8')).toContain('/kb/reports/state/\n');
    expect(await git(checkout, 'status', '--porcelain', '--untracked-files=all')).toBe('');
  });

  test('adds nothing where a .gitignore already covers a directory', async () => {
    const checkout = await toyCheckout({ stateIgnored: false });
    await writeFile(join(checkout, '.gitignore'), '.commonplace/\nkb/reports/state/\n');
    expect((await ignoreMachineLocal(checkout))?.added).toEqual([]);
  });

  test("in a linked worktree, writes the exclude file Git reads for it (the repository's common one)", async () => {
    const checkout = await toyCheckout({ stateIgnored: false });
    const worktree = join(await scratch(), 'linked');
    await git(checkout, 'worktree', 'add', '--quiet', '-b', 'linked', worktree);
    await withResultFile(worktree);
    const ignored = await ignoreMachineLocal(worktree);
    expect(ignored?.file).toBe(join(checkout, '.git', 'info', 'exclude'));
    expect(await git(worktree, 'status', '--porcelain', '--untracked-files=all')).toBe('');
  });

  test('outside a Git repository does nothing', async () => {
    expect(await ignoreMachineLocal(await scratch())).toBeUndefined();
  });
});

describe('commonplace validate beside review results', () => {
  test('skips kb/reports/state/ when walking the KB, and --verbose lists the clean files too', async () => {
    const checkout = await toyCheckout({ stateIgnored: false });
    await withResultFile(checkout);
    const plain = await runCli(['validate', '--kb', checkout]);
    const verbose = await runCli(['validate', '--kb', checkout, '--verbose']);
    expect(plain.stdout).not.toContain('kb/reports/state');
    expect(verbose.stdout).not.toContain('kb/reports/state');
    expect(verbose.stdout).toMatch(/: ok$/m);
    expect(String(verbose.stdout).split('\n').length).toBeGreaterThan(String(plain.stdout).split('\n').length);
  });

  test('still validates a result file named explicitly', async () => {
    const checkout = await toyCheckout({ stateIgnored: false });
    await withResultFile(checkout);
    const named = await runCli(['validate', '--kb', checkout, join(checkout, resultFile)]);
    expect(named.stdout).toContain(resultFile);
  });
});

test('analysis prepare on a checkout whose only changes are review results prepares, saying what Git now ignores', async () => {
  const checkout = await toyCheckout({ stateIgnored: false });
  await withResultFile(checkout);
  const prepared = await runCli(toyPrepareArgs(checkout, 'toy-local'));
  expect(prepared.exitCode).toBe(0);
  expect(prepared.stdout).toMatch(/^prepared AAS-/m);
  expect(prepared.stderr).toMatch(/^added .*\/kb\/reports\/state\/ to \.git\/info\/exclude: machine-local run state and review results, never committed$/m);
});
