import { cp, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { packageRoot } from '../../src/paths.js';
import { scratch } from './fake.js';

export const corpusRoot = join(packageRoot(), 'test', 'fixtures', 'corpus', 'commonplace-kb');

/** A writable copy of the vendored corpus (its kb/ folder), for tests that edit notes and write results. */
export async function corpusCopy(): Promise<string> {
  const root = await scratch('commonplace-kb-');
  await cp(join(corpusRoot, 'kb'), join(root, 'kb'), { recursive: true });
  return root;
}

/** The first `count` notes of kb/notes, by name, skipping README and COLLECTION files. */
export async function someNotes(count: number): Promise<string[]> {
  const names = (await readdir(join(corpusRoot, 'kb', 'notes'))).filter((name) => name.endsWith('.md') && !/^(README|COLLECTION)\.md$/.test(name)).sort();
  return names.slice(0, count).map((name) => `kb/notes/${name}`);
}
