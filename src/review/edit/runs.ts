/**
 * Where an editing run keeps its state: `kb/reports/state/review/runs/<run>/`, with a `run.json`
 * naming its workflow, note, start text and options, so the CLI finds a run by its ID without a
 * server. docs/review-editing.md lays the directory out.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { EditKind, EditOptions } from './types.js';

export const RUNS_DIR = 'kb/reports/state/review/runs';

/** A run's directory. */
export function runDirOf(checkout: string, runId: string): string {
  return path.join(checkout, ...RUNS_DIR.split('/'), runId);
}

export interface RunRecord {
  kind: EditKind;
  runId: string;
  workflowId: string;
  /** The Temporal run of the workflow that owns this directory (a new execution of the ID moves an old one aside). */
  executionRunId: string;
  note: string;
  startSha256: string;
  options: EditOptions;
  created: string;
}

/** A run's record, or undefined when there is no such run directory. */
export async function readRunRecord(checkout: string, runId: string): Promise<RunRecord | undefined> {
  const text = await readFile(path.join(runDirOf(checkout, runId), 'run.json'), 'utf8').catch(() => undefined);
  return text === undefined ? undefined : (JSON.parse(text) as RunRecord);
}
