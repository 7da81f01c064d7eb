/** Review status's file access: synchronous on purpose, one small file a pair read 5–13× faster than the promise API. */
import { closeSync, openSync, readdirSync, readSync } from 'node:fs';
import path from 'node:path';

/** Repository-relative paths of the files under `dir` (itself repository-relative), sorted; hidden entries skipped. */
export function walkFiles(root: string, dir: string, options: { readonly skip?: (relativeDir: string) => boolean } = {}): string[] {
  const found: string[] = [];
  const visit = (relativeDir: string): void => {
    let entries;
    try {
      entries = readdirSync(absolute(root, relativeDir), { withFileTypes: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return;
      throw error;
    }
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      const child = `${relativeDir}/${entry.name}`;
      if (entry.isDirectory() && !options.skip?.(child)) visit(child);
      else if (entry.isFile()) found.push(child);
    }
  };
  visit(dir);
  return found.sort();
}

/** Reads a repository-relative file as UTF-8, or undefined when it does not exist. */
export function readText(root: string, file: string): string | undefined {
  const bytes = readBytes(root, file);
  return bytes === undefined ? undefined : bytes.toString('utf8');
}

let scratch = Buffer.allocUnsafe(64 * 1024);

/** A repository-relative file's bytes (undefined: absent), as a view of a shared buffer valid until the next call; `opened` gets the fd first. */
export function readBytes(root: string, file: string, opened?: (fd: number) => void): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(absolute(root, file), 'r');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw error;
  }
  try {
    opened?.(fd);
    let length = 0;
    for (;;) {
      if (length === scratch.length) {
        const bigger = Buffer.allocUnsafe(scratch.length * 2);
        scratch.copy(bigger, 0, 0, length);
        scratch = bigger;
      }
      const read = readSync(fd, scratch, length, scratch.length - length, null);
      if (read === 0) break;
      length += read;
    }
    return scratch.subarray(0, length);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EISDIR') return undefined;
    throw error;
  } finally {
    closeSync(fd);
  }
}

/** A repository-relative POSIX path made absolute; plain concatenation where the separator is already `/` (path.join costs more than the read). */
export function absolute(root: string, file: string): string {
  return path.sep === '/' ? `${root}/${file}` : path.join(root, ...file.split('/'));
}
