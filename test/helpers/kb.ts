import { execa } from 'execa';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { checkoutIdFile, deriveCheckoutId } from '../../src/checkout/index.js';
import { appendFile, cp, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../../src/paths.js';
import { scratch, waitFor } from './fake.js';

export const corpusRoot = join(packageRoot(), 'test', 'fixtures', 'corpus', 'commonplace-kb');
/** The example KB's kb/ folder (examples/kb), which the demo and the model-API tests sweep. */
export const exampleKb = join(packageRoot(), 'examples', 'kb');

/**
 * A writable checkout holding a copy of a kb/ folder (the corpus's, the example KB's), announced to the file's CLI
 * worker. With `git`, committed on `main` first and, with a CLI worker, held by it (it records the checkout's ID once it
 * does: waited for, so what a command writes is told apart from what the worker wrote on its own time).
 */
export async function kbCopy(kb: string, { prefix = 'commonplace-kb-', git = false } = {}): Promise<string> {
  const root = await scratch(prefix);
  await cp(kb, join(root, 'kb'), { recursive: true });
  if (git) {
    const run = (...args: string[]) => execa('git', ['-c', 'user.name=Commonplace Test', '-c', 'user.email=test@example.invalid', ...args], { cwd: root });
    await run('init', '--quiet', '--initial-branch=main');
    await run('add', '-A');
    await run('commit', '--quiet', '-m', 'kb');
  }
  await announceCheckout(root);
  if (git && process.env.COMMONPLACE_KB_LIST) await waitFor('the worker to hold the checkout', async () => existsSync(checkoutIdFile(root)), 120_000);
  return root;
}

/** A writable copy of the vendored corpus (its kb/ folder), for tests that edit notes and write results. */
export const corpusCopy = () => kbCopy(join(corpusRoot, 'kb'));

const made: string[] = [];

/** A fresh temporary directory, removed by `removeTemps`. */
export async function makeTemp(prefix = 'commonplace-test-'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** Copies a fixture tree into a fresh temporary directory (removed by `removeTemps`): tests never write fixtures. */
export async function copyToTemp(source: string, prefix?: string): Promise<string> {
  const dir = await makeTemp(prefix);
  await cp(source, dir, { recursive: true });
  return dir;
}

/** Removes every temporary directory this test file made. */
export async function removeTemps(): Promise<void> {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}

/**
 * Adds a test's checkout to the list the file's CLI worker holds (COMMONPLACE_KB_LIST, set by
 * `useDevServerWithCliWorker`), so runs the CLI starts on it find a worker for its checkout queue.
 */
export async function announceCheckout(root: string): Promise<void> {
  const list = process.env.COMMONPLACE_KB_LIST;
  if (list) await appendFile(list, `${root}\n`);
}

/** The first `count` notes of kb/notes, by name, skipping README and COLLECTION files. */
export async function someNotes(count: number): Promise<string[]> {
  const names = (await readdir(join(corpusRoot, 'kb', 'notes'))).filter((name) => name.endsWith('.md') && !/^(README|COLLECTION)\.md$/.test(name)).sort();
  return names.slice(0, count).map((name) => `kb/notes/${name}`);
}

/** The checkout's ID as the CLI records it (read back, or derived the same way before the CLI first ran there). */
export function checkoutIdOf(checkout: string): string {
  try {
    return readFileSync(checkoutIdFile(checkout), 'utf8').trim();
  } catch {
    return deriveCheckoutId(realpathSync(checkout));
  }
}
