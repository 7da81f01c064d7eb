/**
 * A run's content-addressed store, the same in every kind of run (analysis, review editing):
 * `<runDir>/store/sha256/<first two hex digits>/<sha256>`. Histories carry the digests; the bytes
 * (candidates, findings, note versions, reviews, captured inputs) live here, written once and
 * atomically, and every read checks the bytes against their digest.
 *
 * Review runs started before the layout was shared kept their texts flat in `<runDir>/store/<sha256>`;
 * a read that finds no entry in the layout falls back to that file (still checked), so such a run can
 * finish. Nothing is written there any more.
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

/** Where review runs before the shared layout kept an entry; read only. */
const flatFile = (runDir: string, digest: string) => path.join(runDir, 'store', digest);

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
  let file = storedFile(runDir, digest);
  let bytes = await readFile(file).catch(() => undefined);
  if (bytes === undefined && /^[0-9a-f]{64}$/.test(digest)) {
    const bytesThere = await readFile(flatFile(runDir, digest)).catch(() => undefined);
    if (bytesThere !== undefined) [file, bytes] = [flatFile(runDir, digest), bytesThere];
  }
  if (bytes === undefined) throw new StoreError(`the run's store has no entry ${digest.slice(0, 12)} (${storedFile(runDir, digest)})`, storedFile(runDir, digest));
  const actual = sha256(bytes);
  if (actual !== digest) throw new StoreError(`the run's store entry ${file} was altered: its bytes hash to ${actual.slice(0, 12)}, not ${digest.slice(0, 12)}`, file);
  return bytes;
}

/** A stored entry as UTF-8 text, checked like `get`. */
export async function getText(runDir: string, digest: string): Promise<string> {
  return (await get(runDir, digest)).toString('utf8');
}
