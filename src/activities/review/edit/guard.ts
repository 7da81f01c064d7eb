import path from 'node:path';
import { changedPaths, type GuardSnapshot } from '../../../review/edit/guard.js';
import { sha256 } from '../../../fs/digest.js';
import { readJson, writeJson } from './run-files.js';
import { committedBetween, gitSnapshot } from './git.js';

const guardDir = (runDir: string) => path.join(runDir, 'guard');

/** Keeps a snapshot in the run directory; the history carries its file name only. */
export async function writeSnapshot(runDir: string, snapshot: GuardSnapshot, name?: string): Promise<string> {
  const text = JSON.stringify(snapshot);
  const file = name ?? `snapshot-${sha256(text).slice(0, 16)}.json`;
  await writeJson(path.join(guardDir(runDir), file), snapshot);
  return file;
}

export interface GuardCheckInput {
  runDir: string;
  checkout: string;
  /** The baseline snapshot's file name in the run's guard directory. */
  baseline: string;
}

/** The checkout guard: paths that changed since the baseline outside review state, and the snapshot they were seen in. */
export async function guardCheck(input: GuardCheckInput): Promise<{ changed: string[]; snapshot: string }> {
  const base = await readJson<GuardSnapshot>(path.join(guardDir(input.runDir), input.baseline));
  const now = await gitSnapshot(input.checkout);
  const changed = changedPaths(base, now, await committedBetween(input.checkout, base.head, now.head));
  if (changed.length === 0) return { changed, snapshot: input.baseline };
  return { changed, snapshot: await writeSnapshot(input.runDir, now) };
}
