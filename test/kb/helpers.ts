import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project root, found from this file so tests run from any clone location. */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The vendored copy of the shared corpus (see test/fixtures/corpus/README.md). */
export const corpusFixture = path.join(repoRoot, 'test/fixtures/corpus/commonplace-kb');

/** The toy KB with a layout and one run's artifact. */
export const toyFixture = path.join(repoRoot, 'test/fixtures/kb/toy');

/** The toy run's artifact, relative to a toy checkout. */
export const toyArtifact = 'runs/AAS-2026-01-01-toy-01/artifact';

export { copyToTemp, makeTemp, removeTemps } from '../helpers/kb.js';

/** Every file under `dir` with the SHA-256 of its bytes, to prove a directory was not touched. */
export async function treeDigest(dir: string): Promise<Record<string, string>> {
  const digest: Record<string, string> = {};
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  for (const entry of entries) {
    const full = path.join(entry.parentPath, entry.name);
    const relative = path.relative(dir, full);
    digest[relative] = entry.isFile()
      ? createHash('sha256')
          .update(await readFile(full))
          .digest('hex')
      : entry.isDirectory()
        ? 'dir'
        : 'other';
  }
  return digest;
}
