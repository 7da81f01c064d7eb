/**
 * The checkout locator: every command works on one KB checkout, the Git root above
 * the current directory that holds `kb/`, or the one named by `--kb`: a directory, or the
 * ID of a checkout this host has on record (src/kb/known-checkouts.ts). The package itself
 * is installed apart from any KB, so nothing is located relative to it.
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import { KbError } from './errors.js';
import { pathExistsSync } from '../fs/exists.js';
import { knownCheckoutIdSync } from './checkout-id.js';
import { looksLikeCheckoutId, recordedRoot } from './known-checkouts.js';

export interface Checkout {
  /** The repository root: type paths such as `kb/types/note.md` resolve against it. */
  readonly root: string;
  /** `<root>/kb`. */
  readonly kbDir: string;
}

/** Finds the KB checkout a command runs on, or says exactly why there is none and how to name one. */
export function findCheckout(startDir: string, kbOption?: string, env: NodeJS.ProcessEnv = process.env): Checkout {
  if (kbOption !== undefined) {
    let named = path.resolve(startDir, kbOption);
    // A directory of that name wins over a checkout ID.
    if (!isDirectory(named) && looksLikeCheckoutId(kbOption)) named = recordedCheckout(kbOption, env);
    if (!isDirectory(named)) throw new KbError('no-checkout', `--kb ${kbOption}: ${named} is not a directory`);
    if (isDirectory(path.join(named, 'kb'))) return { root: named, kbDir: path.join(named, 'kb') };
    // Accept the kb/ directory itself too: `--kb ~/notes/kb` means the checkout above it.
    if (path.basename(named) === 'kb') return { root: path.dirname(named), kbDir: named };
    throw new KbError('no-checkout', `--kb ${kbOption}: ${named} holds no kb/ directory; name the checkout whose kb/ holds the notes`);
  }
  let dir = path.resolve(startDir);
  for (;;) {
    if (pathExistsSync(path.join(dir, '.git'))) {
      if (isDirectory(path.join(dir, 'kb'))) return { root: dir, kbDir: path.join(dir, 'kb') };
      throw new KbError('no-checkout', `the Git checkout at ${dir} has no kb/ directory; run inside a KB checkout or pass --kb DIR`);
    }
    const parent = path.dirname(dir);
    if (parent === dir) {
      throw new KbError('no-checkout', `${path.resolve(startDir)} is not inside a Git checkout; run inside a KB checkout or pass --kb DIR`);
    }
    dir = parent;
  }
}

/** The root this host recorded for a checkout ID, once the checkout there still has that ID. */
function recordedCheckout(id: string, env: NodeJS.ProcessEnv): string {
  const root = recordedRoot(id, env);
  if (root === undefined) {
    throw new KbError(
      'no-checkout',
      `--kb ${id}: no directory of that name, and this host has no checkout with that ID on record (a checkout is recorded the first time a command names it); name the checkout's directory`,
    );
  }
  const now = isDirectory(path.join(root, 'kb')) ? knownCheckoutIdSync(root) : undefined;
  if (now === undefined)
    throw new KbError('no-checkout', `--kb ${id}: this host recorded checkout ${id} at ${root}, which is no checkout now; name the checkout's directory`);
  if (now !== id)
    throw new KbError('no-checkout', `--kb ${id}: this host recorded checkout ${id} at ${root}, which has ID ${now} now; name the checkout's directory`);
  return root;
}

function isDirectory(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}
