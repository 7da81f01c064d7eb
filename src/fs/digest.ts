/**
 * SHA-256, the one digest the project records: store keys, manifests, freshness hashes, captured
 * inputs. Every digest is lowercase hex; a string is hashed as its UTF-8 bytes. The only module that
 * calls node:crypto's createHash — pure modules that workflows import must not import this one.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';

/** The SHA-256 of a string's UTF-8 bytes or of raw bytes, as 64 lowercase hex digits. */
export function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** The SHA-256 of a file's bytes; a missing or unreadable file rejects with the read's own error. */
export async function sha256File(file: string): Promise<string> {
  return sha256(await readFile(file));
}
