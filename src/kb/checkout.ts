/**
 * The checkout locator: every command works on one KB checkout, the Git root above
 * the current directory that holds `kb/`, or the directory named by `--kb DIR`. The
 * package itself is installed apart from any KB, so nothing is located relative to it.
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import { KbError } from './errors.js';
import { pathExistsSync } from '../fs/exists.js';

export interface Checkout {
  /** The repository root: type paths such as `kb/types/note.md` resolve against it. */
  readonly root: string;
  /** `<root>/kb`. */
  readonly kbDir: string;
}

/** Finds the KB checkout a command runs on, or says exactly why there is none and how to name one. */
export function findCheckout(startDir: string, kbOption?: string): Checkout {
  if (kbOption !== undefined) {
    const named = path.resolve(startDir, kbOption);
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

function isDirectory(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}
