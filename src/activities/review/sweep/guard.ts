/**
 * Review workers may write only under review state, so the KB is snapshotted as a batch begins and compared after each launch. A stat
 * per file (size and mtime) is cheap enough per launch over thousands of notes; the history carries the snapshot file's name only.
 */
import { statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../../../fs/atomic.js';
import { walkFiles } from '../../../review/files.js';
import { runDirOf } from './run-dir.js';

type KbSnapshot = Record<string, string>;

const EXCLUDED = 'kb/reports/state';
const snapshotFile = (checkout: string, runId: string, name: string) => path.join(runDirOf(checkout, runId), 'guard', `${name}.json`);

/** Synchronous: a few hundred stats cost a millisecond, a round trip each through the thread pool several. */
function snapshot(checkout: string): KbSnapshot {
  const files = walkFiles(checkout, 'kb', { skip: (dir) => dir === EXCLUDED || dir.startsWith(`${EXCLUDED}/`) });
  const entries: KbSnapshot = {};
  for (const file of files) {
    const info = statSync(path.join(checkout, ...file.split('/')), { throwIfNoEntry: false });
    if (info) entries[file] = `${info.size}:${info.mtimeMs}`;
  }
  return entries;
}

/** A batch's every unit compares with the same one. */
const baselines = new Map<string, KbSnapshot>();

async function baselineAt(file: string): Promise<KbSnapshot> {
  const known = baselines.get(file);
  if (known !== undefined) return known;
  const base = JSON.parse(await readFile(file, 'utf8')) as KbSnapshot;
  if (baselines.size >= 16) baselines.delete(baselines.keys().next().value as string);
  baselines.set(file, base);
  return base;
}

function changed(base: KbSnapshot, now: KbSnapshot): string[] {
  const paths = Object.keys(now).filter((file) => base[file] !== now[file]);
  for (const file of Object.keys(base)) if (!(file in now)) paths.push(file);
  return paths.sort();
}

export async function sweepGuardBaseline(input: { checkout: string; runId: string; name: string }): Promise<string> {
  const file = snapshotFile(input.checkout, input.runId, input.name);
  const base = snapshot(input.checkout);
  await writeFileAtomic(file, JSON.stringify(base));
  baselines.delete(file);
  return input.name;
}

export async function sweepGuardCheck(input: { checkout: string; runId: string; baseline: string }): Promise<{ changed: string[] }> {
  const base = await baselineAt(snapshotFile(input.checkout, input.runId, input.baseline));
  return { changed: changed(base, snapshot(input.checkout)) };
}
