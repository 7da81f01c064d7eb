/**
 * The checkout ID: a stable short ID of a KB checkout, part of every sweep's run ID (and so its
 * workflow ID) and of every "is one open?" question, so checkouts sharing a Temporal namespace never
 * collide or block each other. It is derived once from the checkout's real path and recorded in
 * `.commonplace/checkout-id` (run state, never committed), so a checkout keeps its ID when it moves.
 */
import { readFileSync, realpathSync } from 'node:fs';
import { readFile, realpath } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../fs/atomic.js';
import { sha256 } from '../fs/digest.js';

export const CHECKOUT_ID = /^[0-9a-f]{8}$/;
export const checkoutIdFile = (root: string) => path.join(root, '.commonplace', 'checkout-id');

/** The checkout's ID: the recorded one, or (on first use) one derived from its real path and recorded. */
export async function checkoutId(root: string): Promise<string> {
  const file = checkoutIdFile(root);
  const recorded = (await readFile(file, 'utf8').catch(() => '')).trim();
  if (CHECKOUT_ID.test(recorded)) return recorded;
  const id = deriveCheckoutId(await realpath(root));
  await writeFileAtomic(file, `${id}\n`);
  return id;
}

/** The checkout's ID without recording it: the recorded one, or the one its first command will record. */
export async function knownCheckoutId(root: string): Promise<string> {
  const recorded = (await readFile(checkoutIdFile(root), 'utf8').catch(() => '')).trim();
  return CHECKOUT_ID.test(recorded) ? recorded : deriveCheckoutId(await realpath(root));
}

/** `knownCheckoutId` read synchronously (for the checkout locator), or undefined when `root` is gone. */
export function knownCheckoutIdSync(root: string): string | undefined {
  let recorded = '';
  try {
    recorded = readFileSync(checkoutIdFile(root), 'utf8').trim();
  } catch {
    // none recorded yet
  }
  if (CHECKOUT_ID.test(recorded)) return recorded;
  try {
    return deriveCheckoutId(realpathSync(root));
  } catch {
    return undefined;
  }
}

/** The ID a checkout at this real path gets on first use. */
export function deriveCheckoutId(realRoot: string): string {
  return sha256(realRoot).slice(0, 8);
}
