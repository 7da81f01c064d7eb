/** A reset's record is written before anything is removed: an interrupted reset finishes when run again, and `prepare` never reuses the ID. */
import { existsSync } from 'node:fs';
import { readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../../fs/atomic.js';
import { RUN_STATE } from '../../analysis/run-dir.js';
import { runBranch } from '../../analysis/run-id.js';
import { git, gitOk } from '../../fs/git.js';
import { worktrees } from './git.js';

export interface ResetRecord {
  run: string;
  state: 'resetting' | 'reset';
  discards: string[];
  worktree: string | null;
  startedAt: string;
  finishedAt?: string;
}

const resetDir = (checkout: string) => path.join(checkout, RUN_STATE, 'analysis', 'reset');
export const resetRecordFile = (checkout: string, runId: string) => path.join(resetDir(checkout), `${runId}.json`);

export async function resetRunIds(checkout: string): Promise<string[]> {
  const names = await readdir(resetDir(checkout)).catch(() => [] as string[]);
  return names.filter((name) => name.endsWith('.json')).map((name) => name.slice(0, -'.json'.length));
}

export async function readResetRecord(checkout: string, runId: string): Promise<ResetRecord | undefined> {
  const text = await readFile(resetRecordFile(checkout, runId), 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  return JSON.parse(text) as ResetRecord;
}

/** `unmerged`: the branch's commits not in the checkout's HEAD. */
export async function runFootprint(checkout: string, runId: string): Promise<{ worktree: string | undefined; branch: boolean; unmerged: number }> {
  const branch = runBranch(runId);
  const worktree = (await worktrees(checkout)).find((entry) => entry.branch === branch)?.path;
  const hasBranch = await gitOk(checkout, ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`]);
  const unmerged = hasBranch ? Number(await git(checkout, ['rev-list', '--count', `HEAD..${branch}`])) : 0;
  return { worktree, branch: hasBranch, unmerged };
}

export async function beginReset(checkout: string, record: Omit<ResetRecord, 'state'>): Promise<void> {
  await writeFileAtomic(resetRecordFile(checkout, record.run), `${JSON.stringify({ ...record, state: 'resetting' }, null, 2)}\n`);
}

/** Removes the worktree (and what git leaves of its directory) and the branch, then marks the reset done. */
export async function finishReset(checkout: string, runId: string, now: Date = new Date()): Promise<void> {
  const record = await readResetRecord(checkout, runId);
  if (record === undefined) throw new Error(`${resetRecordFile(checkout, runId)} is missing: a reset is begun before anything is removed`);
  const footprint = await runFootprint(checkout, runId);
  const worktree = footprint.worktree ?? record.worktree ?? undefined;
  if (footprint.worktree !== undefined) await git(checkout, ['worktree', 'remove', '--force', '--force', footprint.worktree]);
  if (worktree !== undefined && existsSync(worktree)) await rm(worktree, { recursive: true, force: true });
  await git(checkout, ['worktree', 'prune']);
  if (footprint.branch) await git(checkout, ['branch', '-D', runBranch(runId)]);
  await writeFileAtomic(resetRecordFile(checkout, runId), `${JSON.stringify({ ...record, state: 'reset', finishedAt: now.toISOString() }, null, 2)}\n`);
}
