/**
 * The analysis's guard on the main checkout: a worker runs in the run's worktree and may write
 * nowhere else, so the checkout the run was prepared from is snapshotted before each launch and
 * compared after it. Run state (`.commonplace/`) and review state are code's own and never count.
 */
import path from 'node:path';
import { readFile } from 'node:fs/promises';
import { writeFileAtomic } from '../../fs/atomic.js';
import { changedPaths, type GuardSnapshot } from '../../review/edit/guard.js';
import { committedBetween, gitSnapshot } from '../review/edit/git.js';
import { RUN_STATE_DIR } from './git.js';

const guardFile = (runDir: string, name: string) => path.join(runDir, 'guard', `checkout-${name}.json`);

async function snapshot(checkout: string): Promise<GuardSnapshot> {
  const now = await gitSnapshot(checkout);
  const entries = Object.fromEntries(Object.entries(now.entries).filter(([file]) => !file.startsWith(`${RUN_STATE_DIR}/`)));
  return { head: now.head, entries };
}

/** Records the main checkout's state before a launch; returns the snapshot's name. */
export async function writeCheckoutSnapshot(runDir: string, checkout: string, name: string): Promise<string> {
  await writeFileAtomic(guardFile(runDir, name), JSON.stringify(await snapshot(checkout)));
  return name;
}

/** The main checkout's paths that changed since the named snapshot. */
export async function checkoutChangesSince(runDir: string, checkout: string, name: string): Promise<string[]> {
  const base = JSON.parse(await readFile(guardFile(runDir, name), 'utf8')) as GuardSnapshot;
  const now = await snapshot(checkout);
  return changedPaths(base, now, await committedBetween(checkout, base.head, now.head));
}
