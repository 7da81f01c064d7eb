/**
 * The sweep's checkout guard. Review workers run in launch directories under review state and may
 * write nothing else, so the KB (`kb/`, outside `kb/reports/state/`) is snapshotted when a batch
 * begins and compared after each launch, before its answer is accepted: a path that changed is a
 * `checkout-changed` stop naming the paths and the launch, and that launch's answer is not accepted.
 * The snapshot is each file's size and modification time (a stat, cheap enough per launch over
 * thousands of notes); the file is kept in the run directory and the history carries its name only.
 */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../../../fs/atomic.js';
import { walkFiles } from '../../../review/files.js';
import { runDirOf } from './run-dir.js';

type KbSnapshot = Record<string, string>;

const EXCLUDED = 'kb/reports/state';
const snapshotFile = (checkout: string, runId: string, name: string) => path.join(runDirOf(checkout, runId), 'guard', `${name}.json`);

async function snapshot(checkout: string): Promise<KbSnapshot> {
  const files = walkFiles(checkout, 'kb', { skip: (dir) => dir === EXCLUDED || dir.startsWith(`${EXCLUDED}/`) });
  const entries: KbSnapshot = {};
  for (const file of files) {
    const info = await stat(path.join(checkout, ...file.split('/'))).catch(() => undefined);
    if (info) entries[file] = `${info.size}:${info.mtimeMs}`;
  }
  return entries;
}

function changed(base: KbSnapshot, now: KbSnapshot): string[] {
  return [...new Set([...Object.keys(base), ...Object.keys(now)])].filter((file) => base[file] !== now[file]).sort();
}

/** Records the KB's state as a batch begins; returns the snapshot's name. */
export async function sweepGuardBaseline(input: { checkout: string; runId: string; name: string }): Promise<string> {
  await writeFileAtomic(snapshotFile(input.checkout, input.runId, input.name), JSON.stringify(await snapshot(input.checkout)));
  return input.name;
}

/** The KB's paths that changed since the named snapshot. */
export async function sweepGuardCheck(input: { checkout: string; runId: string; baseline: string }): Promise<{ changed: string[] }> {
  const base = JSON.parse(await readFile(snapshotFile(input.checkout, input.runId, input.baseline), 'utf8')) as KbSnapshot;
  return { changed: changed(base, await snapshot(input.checkout)) };
}
