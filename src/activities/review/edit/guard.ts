import path from 'node:path';
import { appendFile, mkdir, readFile } from 'node:fs/promises';
import { changedPaths, SANCTIONED_WRITES, unsanctioned, type GuardSnapshot, type SanctionedWrite } from '../../../review/edit/guard.js';
import { readBrief } from './brief.js';
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

interface GuardCheckInput {
  runDir: string;
  checkout: string;
  /** The file name in the run's guard directory. */
  baseline: string;
}

/** Paths changed since the baseline outside review state, and the snapshot they were seen in. */
export async function guardCheck(input: GuardCheckInput): Promise<{ changed: string[]; snapshot: string }> {
  const base = await readJson<GuardSnapshot>(path.join(guardDir(input.runDir), input.baseline));
  const now = await gitSnapshot(input.checkout);
  const all = changedPaths(base, now, await committedBetween(input.checkout, base.head, now.head));
  // Another run's publication (a full pass or revision approved meanwhile) is no stray write: only what it did not write counts.
  const changed =
    all.length === 0
      ? all
      : unsanctioned(all, now, await sanctionedWrites(input.checkout), {
          run: path.basename(input.runDir),
          inputs: (await readBrief(input.runDir).catch(() => [])).map((entry) => entry.path),
        });
  if (changed.length === 0) return { changed, snapshot: input.baseline };
  return { changed, snapshot: await writeSnapshot(input.runDir, now) };
}

export async function sanctionedWrites(checkout: string): Promise<SanctionedWrite[]> {
  const text = await readFile(path.join(checkout, ...SANCTIONED_WRITES.split('/')), 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as SanctionedWrite];
      } catch {
        return []; // a line cut short by a crash names no write
      }
    });
}

/** Before the write: a crash between leaves an entry whose bytes never appear, which sanctions nothing. */
export async function recordSanctionedWrite(checkout: string, write: SanctionedWrite): Promise<void> {
  const file = path.join(checkout, ...SANCTIONED_WRITES.split('/'));
  await mkdir(path.dirname(file), { recursive: true });
  await appendFile(file, `${JSON.stringify(write)}\n`);
}
