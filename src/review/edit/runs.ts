/** An editing run's `run.json` lets the CLI find a run by its ID without a server (docs/review-editing.md). */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { EditKind, EditOptions } from './types.js';

export const RUNS_DIR = 'kb/reports/state/review/runs';

export function runDirOf(checkout: string, runId: string): string {
  return path.join(checkout, ...RUNS_DIR.split('/'), runId);
}

export interface RunRecord {
  kind: EditKind;
  runId: string;
  workflowId: string;
  /** The execution that owns this directory: a new execution of the ID moves an old one aside. */
  executionRunId: string;
  note: string;
  startSha256: string;
  options: EditOptions;
  created: string;
}

export async function readRunRecord(checkout: string, runId: string): Promise<RunRecord | undefined> {
  const text = await readFile(path.join(runDirOf(checkout, runId), 'run.json'), 'utf8').catch(() => undefined);
  return text === undefined ? undefined : (JSON.parse(text) as RunRecord);
}
