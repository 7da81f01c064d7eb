/**
 * The run's content-addressed store: every candidate, findings list and refusal, keyed by its
 * SHA-256. Histories carry the digests; every read checks the bytes against their digest.
 */
import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../../fs/atomic.js';
import { storeDir } from '../../analysis/run-dir.js';

export const sha256Of = (bytes: string | Uint8Array) => createHash('sha256').update(bytes).digest('hex');

export class StoreError extends Error {
  override name = 'StoreError';
  constructor(
    message: string,
    readonly file: string,
  ) {
    super(message);
  }
}

export const storedFile = (runDir: string, digest: string) => path.join(storeDir(runDir), digest.slice(0, 2), digest);

/** Stores bytes under their digest (once; an existing entry is left as it is) and returns the digest. */
export async function put(runDir: string, bytes: string | Uint8Array): Promise<string> {
  const digest = sha256Of(bytes);
  const file = storedFile(runDir, digest);
  const present = await stat(file).then((info) => info.size === Buffer.byteLength(bytes)).catch(() => false);
  if (!present) await writeFileAtomic(file, bytes);
  return digest;
}

/** Reads stored bytes and checks them against their digest: a missing or altered entry is a StoreError naming the file. */
export async function get(runDir: string, digest: string): Promise<Buffer> {
  const file = storedFile(runDir, digest);
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch {
    throw new StoreError(`the run's store has no entry ${digest.slice(0, 12)} (${file})`, file);
  }
  const actual = sha256Of(bytes);
  if (actual !== digest) throw new StoreError(`the run's store entry ${file} was altered: its bytes hash to ${actual.slice(0, 12)}, not ${digest.slice(0, 12)}`, file);
  return bytes;
}

export async function getText(runDir: string, digest: string): Promise<string> {
  return (await get(runDir, digest)).toString('utf8');
}
