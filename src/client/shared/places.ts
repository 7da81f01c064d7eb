/**
 * The client's side of places (src/places.ts): a command writes its checkout's paths as tokens before
 * they enter a workflow's input, memo or schedule, reads a recorded input back as its own paths, and
 * shows tokens in what it prints as the paths of this host.
 */
import type { Client } from '@temporalio/client';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../../fs/atomic.js';
import { sha256 } from '../../fs/digest.js';
import { defaultWorktreesRoot } from '../../analysis/run-dir.js';
import { HostPlaces, checkoutAt, type HeldCheckout } from '../../held-checkouts.js';
import { knownCheckoutId } from '../../kb/checkout-id.js';
import { findCheckout } from '../../kb/checkout.js';
import { checkoutQueue } from '../../places.js';
import { knowCheckout, rendered } from './render-paths.js';
import { runnable } from './command-line.js';
import { recordNamed } from './checkout.js';
import { queuePolled, TASK_QUEUE_TYPE } from './preflight.js';

/** Every checkout this command has named, so what it prints shows their paths. */
const known = new HostPlaces();

/** A checkout this command names: its tokens resolve here, and print as its paths (render-paths.ts); this host records where it is. */
async function remember(checkout: HeldCheckout): Promise<void> {
  if (known.holds(checkout.id)) return;
  known.add(checkout);
  knowCheckout(checkout.id, checkout);
  await recordNamed(checkout.id, checkout.root);
}

/** The places of the checkout at `root`, known to this command from now on. */
export async function checkoutPlaces(root: string): Promise<HostPlaces> {
  const checkout = await checkoutAt(root);
  await remember(checkout);
  const places = new HostPlaces();
  places.add(checkout);
  return places;
}

/**
 * A value as workflow data carries it: the checkout's paths (and the package's) written from their
 * tokens. A profiles file outside the checkout is copied into the checkout's machine-local state first
 * (content-addressed), so the workers holding the checkout read the same profiles this command checked.
 */
export async function portable<T>(value: T, root: string): Promise<T> {
  const places = await checkoutPlaces(root);
  const profilesFile = (value as { profilesFile?: unknown }).profilesFile;
  if (typeof profilesFile === 'string' && places.toPortable(profilesFile) === profilesFile) {
    return places.toPortable({ ...value, profilesFile: await copiedIntoCheckout(profilesFile, root) });
  }
  return places.toPortable(value);
}

/** A copy of `file` under the checkout's `.commonplace/profiles/`, named by its content's digest. */
async function copiedIntoCheckout(file: string, root: string): Promise<string> {
  const bytes = await readFile(file);
  const copy = path.join(root, '.commonplace', 'profiles', `${sha256(bytes).slice(0, 16)}-${path.basename(file)}`);
  await mkdir(path.dirname(copy), { recursive: true });
  await writeFileAtomic(copy, bytes);
  return copy;
}

/**
 * Names the checkout `--kb` or the current directory is in, when there is one, so what this command
 * prints shows that checkout's paths; a command that needs no checkout goes on without one.
 */
export async function knowCheckoutHere(kb: string | undefined): Promise<void> {
  let root: string;
  try {
    root = findCheckout(process.cwd(), kb).root;
  } catch {
    return;
  }
  // Its ID as recorded (or as its first command will record it): naming it here writes nothing.
  const id = await knownCheckoutId(root).catch(() => undefined);
  if (id !== undefined) await remember({ id, root, worktrees: defaultWorktreesRoot(root) });
}

/** A text to print, with place tokens as this host's paths or words (render-paths.ts). */
export const shown = rendered;

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
  const [checkout] = (await checkoutPlaces(root)).checkouts();
  const queue = checkoutQueue(checkout!.id);
  if ((await queuePolled(client, queue, TASK_QUEUE_TYPE.activity)) === false) {
    process.stderr.write(
      `no worker holds this checkout yet (task queue ${queue} has no poller): its work waits until one starts — \`${runnable(`commonplace worker --kb ${root}`)}\`\n`,
    );
  }
}
