import { readFileSync, realpathSync } from 'node:fs';
import { checkoutIdFile, deriveCheckoutId } from '../../src/checkout/index.js';
import { appendFile, cp, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { packageRoot } from '../../src/paths.js';
import { scratch } from './fake.js';

export const corpusRoot = join(packageRoot(), 'test', 'fixtures', 'corpus', 'commonplace-kb');

/** A writable copy of the vendored corpus (its kb/ folder), for tests that edit notes and write results. */
export async function corpusCopy(): Promise<string> {
  const root = await scratch('commonplace-kb-');
  await cp(join(corpusRoot, 'kb'), join(root, 'kb'), { recursive: true });
  await announceCheckout(root);
  return root;
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
