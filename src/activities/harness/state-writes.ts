/**
 * A harness write into the worker's own state directory: outside its launch directory and outside any
 * checkout, so neither the launch's output checks nor a checkout's guard sees it. After each try, the
 * state directory is walked for files changed since the try started, leaving out what the worker
 * itself keeps there (the tries index, probe launch directories, the dev server's database, temporary
 * files of atomic writes) and the launch directory itself; what is left is named in the try's log
 * directory and the worker's log, and carried by the launch result (`strayWrites`). Concurrent tries
 * on one worker see the same stray file, so it names what was written, not which try wrote it.
 */
import { lstat, readdir } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';

/** Entries of the state directory the worker writes itself, by their first path segment. */
const WORKER_OWNED = [/^tries$/, /^probes$/, /^temporal\.db/, /^checkout-id$/, /^jest-results\.json$/];

/** Walks no deeper than this, and looks at no more entries: a state directory is small. */
const MAX_DEPTH = 8;
const MAX_ENTRIES = 20_000;

/** Files under `stateDir` changed at or after `sinceMs`, relative to it, outside `launchDir` and what the worker keeps there. */
export async function strayStateWrites(stateDir: string, sinceMs: number, launchDir: string): Promise<string[]> {
  const root = resolve(stateDir);
  const own = resolve(launchDir);
  const found: string[] = [];
  let seen = 0;
  const walk = async (dir: string, depth: number): Promise<void> => {
    if (depth > MAX_DEPTH || seen > MAX_ENTRIES) return;
    const names = await readdir(dir).catch(() => [] as string[]);
    for (const name of names) {
      seen += 1;
      const path = join(dir, name);
      const rel = relative(root, path);
      if (depth === 0 && WORKER_OWNED.some((pattern) => pattern.test(name))) continue;
      if (/\.tmp(-|$)/.test(name)) continue;
      if (path === own) continue;
      const stat = await lstat(path).catch(() => undefined);
      if (stat === undefined) continue;
      if (stat.isDirectory()) {
        await walk(path, depth + 1);
        continue;
      }
      if (stat.mtimeMs >= sinceMs) found.push(rel);
    }
  };
  await walk(root, 0);
  return found.sort();
}
