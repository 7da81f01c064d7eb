/** An editing run's files: JSON records in its run directory, and a fresh launch directory per ask with its captured inputs. */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../../../fs/atomic.js';

export async function readJson<T>(file: string): Promise<T> {
  return JSON.parse(await readFile(file, 'utf8')) as T;
}

export async function writeJson(file: string, value: unknown): Promise<void> {
  await writeFileAtomic(file, `${JSON.stringify(value, null, 2)}\n`);
}

/** A fresh launch directory for one ask: numbered, so no two launches of a run share one. */
export async function launchDir(runDir: string, seq: number, job: string): Promise<string> {
  const dir = path.join(runDir, 'launches', `${String(seq).padStart(3, '0')}-${job.replace(/[^A-Za-z0-9._-]+/g, '_')}`);
  await mkdir(path.join(dir, 'inputs'), { recursive: true });
  return dir;
}

/** Writes a captured input into a launch directory. */
export async function writeInput(dir: string, relative: string, text: string): Promise<void> {
  const target = path.join(dir, relative);
  await mkdir(path.dirname(target), { recursive: true });
  await writeFile(target, text);
}
