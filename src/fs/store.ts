/**
 * A run's content-addressed store, the same in every kind of run (analysis, review editing):
 * `<runDir>/store/sha256/<first two hex digits>/<sha256>`. Histories carry the digests; the bytes
 * (candidates, findings, note versions, reviews, captured inputs) live here, written once and
 * atomically, and every read checks the bytes against their digest.
 *
 * Only this layout is read: the flat `<runDir>/store/<sha256>` of review runs before 0.1.0's shared
 * layout belongs to runs that 0.2.0 workers do not run (docs/upgrading.md).
 */
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

export const storeDir = (runDir: string) => path.join(runDir, 'store', 'sha256');

export const storedFile = (runDir: string, digest: string) => path.join(storeDir(runDir), digest.slice(0, 2), digest);

/** Stores bytes (a string as UTF-8) under their digest and returns it; an entry already there with the right bytes is left as it is, an altered one is rewritten. */
export async function put(runDir: string, data: string | Uint8Array): Promise<string> {
  const digest = sha256(data);
  const file = storedFile(runDir, digest);
  const existing = await readFile(file).catch(() => undefined);
  if (existing === undefined || sha256(existing) !== digest) await writeFileAtomic(file, data);
  return digest;
}

/** Reads stored bytes and checks them against their digest: a missing or altered entry is a StoreError naming the file. */
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
