/**
 * A command's checkout: the root `--kb` or the current directory names, resolved once at the
 * boundary; then its first step on it: Git is made to ignore the machine-local state the run will
 * write (said once, on stderr, when an entry is added), and the checkout's ID is read or recorded.
 */
import path from 'node:path';
import { checkoutId, knownCheckoutId } from '../../kb/checkout-id.js';
import { findCheckout } from '../../kb/checkout.js';
import { KbError } from '../../kb/errors.js';
import { recordCheckout } from '../../kb/known-checkouts.js';
import { ignoreMachineLocal } from '../../kb/machine-local.js';
import { UserError } from './errors.js';
import { workingOn } from './command-line.js';

/** The checkout's ID for a command that may still be refused: nothing is written until it opens the checkout for work. */
export function checkoutIdAt(root: string): Promise<string> {
  return knownCheckoutId(root);
}

/**
 * Records where a checkout this command names is on this host, so `--kb <its ID>` (as the Web UI's
 * commands name it) finds it here; written only when the record changes. A failure to write it (a
 * read-only home) leaves the command as it was, and says nothing: only `--kb <ID>` needs it.
 */
export async function recordNamed(id: string, root: string): Promise<void> {
  await recordCheckout(id, root).catch(() => undefined);
}

/** Opens the checkout for runs and returns its ID: only once the command is going to do work. */
export async function openCheckout(root: string): Promise<string> {
  const ignored = await ignoreMachineLocal(root);
  if (ignored && ignored.added.length > 0) {
    const file = path.relative(root, ignored.file) || ignored.file;
    process.stderr.write(`added ${ignored.added.join(' ')} to ${file}: machine-local run state and review results, never committed\n`);
  }
  const id = await checkoutId(root);
  await recordNamed(id, root);
  return id;
}

/**
 * The checkout root `--kb` (or the current directory) names; not a checkout is bad input (exit 1).
 * The commands this command prints to type next name it (`--kb`).
 */
export function checkoutRootOf(kb: string | undefined): string {
  try {
    return workingOn(findCheckout(process.cwd(), kb).root);
  } catch (error) {
    if (error instanceof KbError) throw new UserError(error.message);
    throw error;
  }
}
