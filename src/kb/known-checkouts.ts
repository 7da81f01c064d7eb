/**
 * A host's record of the checkouts its commands have named: one small file per checkout ID,
 * `<state home>/commonplace/checkouts/<checkout-id>`, holding the checkout's root (state home is
 * `$XDG_STATE_HOME`, else `~/.local/state`). It lets `--kb` take a checkout ID: the commands the Web UI
 * shows name their checkout by ID, since workflow data carries no host path (src/places.ts).
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { writeFileAtomic } from '../fs/atomic.js';
import { CHECKOUT_ID } from './checkout-id.js';

/** Where this host keeps state that is neither configuration nor cache (the XDG base directories' rule: a relative value is ignored). */
export function stateHome(env: NodeJS.ProcessEnv = process.env): string {
  const given = env.XDG_STATE_HOME;
  if (given && path.isAbsolute(given)) return given;
  return path.join(env.HOME || homedir(), '.local', 'state');
}

/** The directory of the record: one file per checkout ID. */
export const knownCheckoutsDir = (env: NodeJS.ProcessEnv = process.env) => path.join(stateHome(env), 'commonplace', 'checkouts');

/** The record's file for one checkout ID. */
export const knownCheckoutFile = (id: string, env: NodeJS.ProcessEnv = process.env) => path.join(knownCheckoutsDir(env), id);

/** Whether `text` has the form of a checkout ID (eight hex digits). */
export const looksLikeCheckoutId = (text: string) => CHECKOUT_ID.test(text);

/**
 * Records that the checkout with ID `id` is at `root` on this host; writes (atomically) only when the
 * record says otherwise. Returns whether it wrote.
 */
export async function recordCheckout(id: string, root: string, env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  if (!looksLikeCheckoutId(id)) return false;
  const file = knownCheckoutFile(id, env);
  const content = `${path.resolve(root)}\n`;
  if ((await readFile(file, 'utf8').catch(() => undefined)) === content) return false;
  await writeFileAtomic(file, content, { fsync: false });
  return true;
}

/** The root this host recorded for a checkout ID, if any. */
export function recordedRoot(id: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (!looksLikeCheckoutId(id)) return undefined;
  try {
    const root = readFileSync(knownCheckoutFile(id, env), 'utf8').trim();
    return root === '' ? undefined : root;
  } catch {
    return undefined;
  }
}
