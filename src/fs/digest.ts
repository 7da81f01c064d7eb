/** SHA-256, the one digest the project records (lowercase hex). The only caller of createHash: pure modules must not import this one. */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';

export function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

export async function sha256File(file: string): Promise<string> {
  return sha256(await readFile(file));
}
