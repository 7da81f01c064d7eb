import { createHash } from 'node:crypto';
import { cp, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
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

const made: string[] = [];

/** Copies a fixture tree into a fresh temporary directory; tests never write fixtures. */
export async function copyToTemp(source: string, prefix = 'commonplace-test-'): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  made.push(dir);
  await cp(source, dir, { recursive: true });
  return dir;
}

/** An empty temporary directory, removed by `removeTemps`. */
export async function makeTemp(prefix = 'commonplace-test-'): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** Removes every temporary directory this test file made. */
export async function removeTemps(): Promise<void> {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}

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
