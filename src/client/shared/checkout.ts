/**
 * A command's asks of its checkout (src/checkout/), with what only the CLI adds: a checkout the command
 * names prints as its paths here (render-paths.ts), a bad `--kb` is the operator's error, and a checkout
 * no worker holds is said.
 */
import type { Client } from '@temporalio/client';
import { carried, checkoutAt, checkoutHere, checkoutQueue, findCheckout, HostPlaces, type HeldCheckout } from '../../checkout/index.js';
import { KbError } from '../../kb/errors.js';
import { runnable, workingOn } from './command-line.js';
import { UserError } from './errors.js';
import { queuePolled, TASK_QUEUE_TYPE } from './preflight.js';
import { knowCheckout } from './render-paths.js';

/** Every checkout this command has named, so what it prints shows their paths. */
const known = new HostPlaces();

/** A checkout this command names: its tokens resolve here, and print as its paths (render-paths.ts). */
function remember(checkout: HeldCheckout): HeldCheckout {
  if (!known.holds(checkout.id)) {
    known.add(checkout);
    knowCheckout(checkout.id, checkout);
  }
  return checkout;
}

/** The checkout at `root`, named by this command from now on. */
export async function nameCheckout(root: string): Promise<HeldCheckout> {
  return remember(await checkoutAt(root));
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

/** Names the checkout `--kb` or the current directory is in, when there is one, so what this command prints shows its paths. */
export async function knowCheckoutHere(kb: string | undefined): Promise<void> {
  const checkout = await checkoutHere(kb);
  if (checkout !== undefined) remember(checkout);
}

/** A value as workflow data carries it from the checkout at `root` (`carried`), which this command names. */
export async function portable<T>(value: T, root: string): Promise<T> {
  return carried(value, await nameCheckout(root));
}

/**
 * A value for what a person reads in the Web UI (static details): this host's paths of every checkout
 * this command named, and of the package, written from their tokens — to be shown as words there.
 */
export function tokensOf<T>(value: T): T {
  return known.toPortable(value);
}

/**
 * Says on stderr when no worker polls the checkout's task queue: the run's checkout work waits in the
 * queue until a worker holding the checkout starts, which is easy to mistake for a hang.
 */
export async function warnUnheld(client: Client, root: string): Promise<void> {
  const queue = checkoutQueue((await nameCheckout(root)).id);
  if ((await queuePolled(client, queue, TASK_QUEUE_TYPE.activity)) === false) {
    process.stderr.write(
      `no worker holds this checkout yet (task queue ${queue} has no poller): its work waits until one starts — \`${runnable(`commonplace worker --kb ${root}`)}\`\n`,
    );
  }
}
