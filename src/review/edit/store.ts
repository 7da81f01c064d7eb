/**
 * The run's content-addressed store: `runs/<run>/store/<sha256>`. Histories carry digests; the
 * texts (note versions, reviews, captured criteria and instructions, answers) live here, and every
 * read checks the digest.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../../fs/atomic.js';
import { sha256 } from '../hash.js';

const storeFile = (runDir: string, digest: string) => path.join(runDir, 'store', digest);

/** Stores a text under its SHA-256 and returns the digest (storing the same text twice is a no-op). */
export async function putText(runDir: string, text: string): Promise<string> {
  const digest = sha256(text);
  const existing = await readFile(storeFile(runDir, digest), 'utf8').catch(() => undefined);
  if (existing === undefined || sha256(existing) !== digest) await writeFileAtomic(storeFile(runDir, digest), text);
  return digest;
}

/** Reads a stored text; a missing or altered entry is an error naming the digest. */
export async function getText(runDir: string, digest: string): Promise<string> {
  let text: string;
  try {
    text = await readFile(storeFile(runDir, digest), 'utf8');
  } catch {
    throw new Error(`the run's store has no text ${digest} (${storeFile(runDir, digest)})`);
  }
  if (sha256(text) !== digest) throw new Error(`the run's store entry ${storeFile(runDir, digest)} does not hash to its name: it was altered`);
  return text;
}
