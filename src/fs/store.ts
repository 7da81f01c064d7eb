/** A run's content-addressed store: histories carry the digests, the bytes live here, written once atomically, checked on every read. */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from './atomic.js';
import { sha256 } from './digest.js';

export class StoreError extends Error {
  override name = 'StoreError';
  constructor(
    message: string,
    readonly file: string,
  ) {
    super(message);
  }
}

export const storedFile = (runDir: string, digest: string) => path.join(runDir, 'store', 'sha256', digest.slice(0, 2), digest);

/** An entry already there with the right bytes is left as it is; an altered one is rewritten. */
export async function put(runDir: string, data: string | Uint8Array): Promise<string> {
  const digest = sha256(data);
  const file = storedFile(runDir, digest);
  const existing = await readFile(file).catch(() => undefined);
  if (existing === undefined || sha256(existing) !== digest) await writeFileAtomic(file, data);
  return digest;
}

/** A missing or altered entry is a StoreError naming the file. */
export async function get(runDir: string, digest: string): Promise<Buffer> {
  const file = storedFile(runDir, digest);
  const bytes = await readFile(file).catch(() => undefined);
  if (bytes === undefined) throw new StoreError(`the run's store has no entry ${digest.slice(0, 12)} (${file})`, file);
  const actual = sha256(bytes);
  if (actual !== digest)
    throw new StoreError(`the run's store entry ${file} was altered: its bytes hash to ${actual.slice(0, 12)}, not ${digest.slice(0, 12)}`, file);
  return bytes;
}

/** A stored entry as UTF-8 text, checked like `get`. */
export async function getText(runDir: string, digest: string): Promise<string> {
  return (await get(runDir, digest)).toString('utf8');
}
