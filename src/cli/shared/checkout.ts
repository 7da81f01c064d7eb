/**
 * A command's first step on a KB checkout: Git is made to ignore the machine-local state the run will
 * write (said once, on stderr, when an entry is added), and the checkout's ID is read or recorded.
 */
import path from 'node:path';
import { checkoutId } from '../../kb/checkout-id.js';
import { ignoreMachineLocal } from '../../kb/machine-local.js';

export async function openCheckout(root: string): Promise<string> {
  const ignored = await ignoreMachineLocal(root);
  if (ignored && ignored.added.length > 0) {
    const file = path.relative(root, ignored.file) || ignored.file;
    process.stderr.write(`added ${ignored.added.join(' ')} to ${file}: machine-local run state and review results, never committed\n`);
  }
  return checkoutId(root);
}
