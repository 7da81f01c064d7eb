/** A worker may write only in the run's worktree, so the main checkout is snapshotted before each launch and compared after. */
import path from 'node:path';
import { readFile } from 'node:fs/promises';
import { writeFileAtomic } from '../../fs/atomic.js';
import { changedPaths, type GuardSnapshot } from '../../review/edit/guard.js';
import { committedBetween, gitSnapshot } from '../review/edit/git.js';
import { RUN_STATE } from '../../analysis/run-dir.js';

const guardFile = (runDir: string, name: string) => path.join(runDir, 'guard', `checkout-${name}.json`);

async function snapshot(checkout: string): Promise<GuardSnapshot> {
  const now = await gitSnapshot(checkout);
  const entries = Object.fromEntries(Object.entries(now.entries).filter(([file]) => !file.startsWith(`${RUN_STATE}/`)));
  return { head: now.head, entries };
}

export async function writeCheckoutSnapshot(runDir: string, checkout: string, name: string): Promise<string> {
  await writeFileAtomic(guardFile(runDir, name), JSON.stringify(await snapshot(checkout)));
  return name;
}

export async function checkoutChangesSince(runDir: string, checkout: string, name: string): Promise<string[]> {
  const base = JSON.parse(await readFile(guardFile(runDir, name), 'utf8')) as GuardSnapshot;
  const now = await snapshot(checkout);
  return changedPaths(base, now, await committedBetween(checkout, base.head, now.head));
}
