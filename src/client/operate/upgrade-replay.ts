/**
 * The replays `commonplace upgrade check` runs: every open run's history, and recorded history files,
 * against one workflow bundle, each named with the first command that no longer matches.
 */
import type { Client } from '@temporalio/client';
import type { HistoryAndWorkflowId } from '@temporalio/common';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { Worker, type WorkerOptions } from '@temporalio/worker';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { UserError } from '../shared/errors.js';

export type WorkflowCode = NonNullable<WorkerOptions['workflowBundle']>;

export interface ReplayFailure {
  /** `open`: a run open on the namespace; `recorded`: a history file. */
  kind: 'open' | 'recorded';
  workflowId: string;
  runId: string;
  /** The history file, relative to the directory given (recorded histories only). */
  file?: string;
  /** The first mismatching command, as the SDK's determinism check words it. */
  mismatch: string;
}

export interface ReplayReport {
  checked: number;
  failures: ReplayFailure[];
}

/** The SDK's determinism error carries the core's nondeterminism message inside a longer text: that message, else the error's first line. */
export function mismatchOf(error: Error): string {
  const core = /(\[TMPRL\d+\] )?Nondeterminism error: ((?:[^"\\]|\\.)*)/.exec(error.message);
  if (core) return `${core[1] ?? ''}Nondeterminism error: ${core[2]!.replace(/\\"/g, '"').replace(/\\'/g, "'")}`.trim();
  return error.message.split('\n')[0]!.trim();
}

async function replayAll(code: WorkflowCode, histories: AsyncIterable<HistoryAndWorkflowId> | Iterable<HistoryAndWorkflowId>, onReplayed: (done: number) => void, describe: (workflowId: string, runId: string) => Omit<ReplayFailure, 'mismatch' | 'workflowId' | 'runId'>): Promise<ReplayReport> {
  const failures: ReplayFailure[] = [];
  let checked = 0;
  for await (const result of Worker.runReplayHistories({ workflowBundle: code }, histories)) {
    checked += 1;
    onReplayed(checked);
    if (result.error) failures.push({ ...describe(result.workflowId, result.runId), workflowId: result.workflowId, runId: result.runId, mismatch: mismatchOf(result.error) });
  }
  return { checked, failures };
}

/** Replays every run of these workflow types open on the client's namespace (a shared namespace may hold other applications' runs), its history fetched from the server. */
export async function replayOpenRuns(client: Client, code: WorkflowCode, workflowTypes: readonly string[], onReplayed: (done: number, total: number) => void): Promise<ReplayReport> {
  const query = `ExecutionStatus = 'Running' AND WorkflowType IN (${workflowTypes.map((type) => `'${type}'`).join(', ')})`;
  const { count: total } = await client.workflow.count(query);
  const histories = client.workflow.list({ query }).intoHistories({ concurrency: 4 });
  return replayAll(code, histories, (done) => onReplayed(done, total), () => ({ kind: 'open' }));
}

/** The history files under a directory (and its folders): each `*.json`, its workflow ID from the folder's `workflow-ids.map` when it names one, else the file's name. */
export function recordedHistories(dir: string): { file: string; workflowId: string; history: unknown }[] {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new UserError(`--histories ${dir}: no such directory`);
  const found: { file: string; workflowId: string; history: unknown }[] = [];
  const visit = (folder: string) => {
    const mapFile = join(folder, 'workflow-ids.map');
    const ids = existsSync(mapFile) ? (JSON.parse(readFileSync(mapFile, 'utf8')) as Record<string, string>) : {};
    for (const entry of readdirSync(folder, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) visit(path);
      else if (entry.name.endsWith('.json')) {
        let history: unknown;
        try {
          history = historyFromJSON(JSON.parse(readFileSync(path, 'utf8')));
        } catch (error) {
          throw new UserError(`--histories ${dir}: ${relative(dir, path)} is not a workflow history (${(error as Error).message.split('\n')[0]})`);
        }
        found.push({ file: relative(dir, path), workflowId: ids[entry.name] ?? entry.name.replace(/\.json$/, ''), history });
      }
    }
  };
  visit(dir);
  return found;
}

/** Replays each recorded history under a directory. */
export async function replayRecorded(dir: string, code: WorkflowCode, onReplayed: (done: number, total: number) => void): Promise<ReplayReport> {
  const recorded = recordedHistories(dir);
  // One history at a time, so each result is matched to its file even when two files share a workflow ID.
  const failures: ReplayFailure[] = [];
  let checked = 0;
  for (const entry of recorded) {
    const report = await replayAll(code, [{ workflowId: entry.workflowId, history: entry.history }], () => undefined, () => ({ kind: 'recorded', file: entry.file }));
    checked += report.checked;
    failures.push(...report.failures);
    onReplayed(checked, recorded.length);
  }
  return { checked, failures };
}
