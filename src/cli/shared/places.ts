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
import { HostPlaces, checkoutAt } from '../../held-checkouts.js';
import { checkoutQueue } from '../../places.js';
import { showPathsWith } from './json-output.js';
import { queuePolled, TASK_QUEUE_TYPE } from './preflight.js';

/** Every checkout this command has named, so what it prints shows their paths. */
const known = new HostPlaces();

/** The places of the checkout at `root`, known to this command from now on. */
export async function checkoutPlaces(root: string): Promise<HostPlaces> {
  const checkout = await checkoutAt(root);
  if (!known.holds(checkout.id)) known.add(checkout);
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

showPathsWith((text) => shown(text));

/** A text to print, with the tokens of every checkout this command named shown as its paths. */
export function shown(text: string): string {
  if (!text.includes('<')) return text;
  const checkouts = new Map(known.checkouts().map((checkout) => [checkout.id, checkout]));
  return text.replace(/<(checkout|worktrees):([0-9a-f]{8})>/g, (token, kind: string, id: string) => {
    const checkout = checkouts.get(id);
    if (!checkout) return token;
    return kind === 'checkout' ? checkout.root : checkout.worktrees;
  });
}

/**
 * Says on stderr when no worker polls the checkout's task queue: the run's checkout work waits in the
 * queue until a worker holding the checkout starts, which is easy to mistake for a hang.
 */
export async function warnUnheld(client: Client, root: string): Promise<void> {
  const [checkout] = (await checkoutPlaces(root)).checkouts();
  const queue = checkoutQueue(checkout!.id);
  if ((await queuePolled(client, queue, TASK_QUEUE_TYPE.activity)) === false) {
    process.stderr.write(`no worker holds this checkout yet (task queue ${queue} has no poller): its work waits until one starts — \`commonplace worker --kb ${root}\`\n`);
  }
}
