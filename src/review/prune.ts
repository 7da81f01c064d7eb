/** Pruning orphaned result files that review status found: only those unchanged since, and the directories that leaves empty. */
import { readFile, rmdir, unlink } from 'node:fs/promises';
import path from 'node:path';
import { sha256 } from '../fs/digest.js';
import { RESULTS_DIR } from './paths.js';
import type { Orphan } from './status-results.js';
import { byCodePoint } from './status-results.js';

export interface PruneReport {
  /** Result files deleted, repository-relative. */
  readonly deleted: readonly string[];
  /** Orphans left in place because the file changed (or vanished) since it was classified. */
  readonly kept: readonly { readonly path: string; readonly reason: string }[];
  /** Directories of the results tree that the deletions emptied and that were removed. */
  readonly removedDirs: readonly string[];
}

/** Deletes orphaned result files that are unchanged since they were found, and the directories that leaves empty. */
export async function pruneOrphans(checkoutRoot: string, orphans: readonly Orphan[]): Promise<PruneReport> {
  const root = path.resolve(checkoutRoot);
  const deleted: string[] = [];
  const kept: { path: string; reason: string }[] = [];
  const dirs = new Set<string>();
  for (const orphan of orphans) {
    if (!orphan.resultPath.startsWith(`${RESULTS_DIR}/`)) {
      kept.push({ path: orphan.resultPath, reason: 'not in the results tree' });
      continue;
    }
    const absolute = path.join(root, ...orphan.resultPath.split('/'));
    let text: string;
    try {
      text = await readFile(absolute, 'utf8');
    } catch {
      kept.push({ path: orphan.resultPath, reason: 'already gone' });
      continue;
    }
    if (sha256(text) !== orphan.fileSha256) {
      kept.push({ path: orphan.resultPath, reason: 'changed since it was found; run status again' });
      continue;
    }
    await unlink(absolute);
    deleted.push(orphan.resultPath);
    dirs.add(path.posix.dirname(orphan.resultPath));
  }
  // Remove emptied directories bottom-up, never the results tree itself.
  const removedDirs: string[] = [];
  const candidates = new Set<string>();
  for (const dir of dirs) {
    for (let current = dir; current.startsWith(`${RESULTS_DIR}/`); current = path.posix.dirname(current)) candidates.add(current);
  }
  for (const dir of [...candidates].sort((a, b) => b.split('/').length - a.split('/').length || byCodePoint(a, b))) {
    try {
      await rmdir(path.join(root, ...dir.split('/')));
      removedDirs.push(dir);
    } catch {
      // Not empty (other results, or another orphan kept): leave it.
    }
  }
  removedDirs.sort(byCodePoint);
  return { deleted, kept, removedDirs };
}
