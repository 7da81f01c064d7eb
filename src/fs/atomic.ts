import { randomUUID } from 'node:crypto';
import { mkdir, open, readdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

export interface AtomicWriteOptions {
  /** Flush the file and its directory to disk before returning. Default true. */
  fsync?: boolean;
  /** Called once the temporary file is written, before the rename: where a test's fault point kills the writer. */
  beforeRename?: () => void | Promise<void>;
}

const TEMP_TAIL = /^\d+\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.tmp$/;

export function isAtomicTemp(name: string, target: string): boolean {
  const head = `.${target}.`;
  return name.startsWith(head) && TEMP_TAIL.test(name.slice(head.length));
}

/** Temporary files of writes whose process died before the rename, so a retried write leaves none and nothing stages them. */
export async function removeAtomicLeftovers(target: string): Promise<string[]> {
  const dir = dirname(target);
  const names = await readdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  const leftovers = names.filter((name) => isAtomicTemp(name, basename(target))).map((name) => join(dir, name));
  for (const leftover of leftovers) await rm(leftover, { force: true });
  return leftovers;
}

/** A reader sees the old bytes or the new, never half. */
export async function writeFileAtomic(target: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): Promise<void> {
  const fsync = options.fsync ?? true;
  const dir = dirname(target);
  await mkdir(dir, { recursive: true });
  const temp = join(dir, `.${basename(target)}.${process.pid}.${randomUUID()}.tmp`);
  try {
    const handle = await open(temp, 'wx');
    try {
      await handle.writeFile(data);
      if (fsync) await handle.sync();
    } finally {
      await handle.close();
    }
    await options.beforeRename?.();
    await rename(temp, target);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  if (fsync) await syncDirectory(dir);
}

async function syncDirectory(dir: string): Promise<void> {
  try {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Some filesystems refuse fsync on a directory; the rename is still atomic.
  }
}
