/**
 * The replays `commonplace upgrade check` runs: every open run's history, and recorded history files,
 * against one workflow bundle, each named with the first command that no longer matches and the release
 * (the code) the run began on, from its memo (a recorded history: its start event's). When the code
 * checked is this release's, a run begun on a release it does not run (src/release.ts) is named with the
 * line its workers would refuse it in, unreplayed.
 */
import type { Client } from '@temporalio/client';
import { defaultPayloadConverter, type HistoryAndWorkflowId } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { Worker, type WorkerOptions } from '@temporalio/worker';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { RELEASE, refusalIn, refusalOf, releaseOfMemo, runsRunsOf } from '../../release.js';
import { UserError } from '../shared/errors.js';

export type WorkflowCode = NonNullable<WorkerOptions['workflowBundle']>;

export interface ReplayFailure {
  /** `open`: a run open on the namespace; `recorded`: a history file. */
  kind: 'open' | 'recorded';
  workflowId: string;
  runId: string;
  /** The history file, relative to the directory given (recorded histories only). */
  file?: string;
  /** The first mismatching command, as the SDK's determinism check words it; for a refused run, the line its workers refuse it in. */
  mismatch: string;
  /** The release a refused run began on (older than the oldest the code checked runs). */
  release?: string;
  /** The release the run began on: its version and the digest of its workflow code (src/release.ts); a bare version for a run that named no code. */
  began: string;
}

/** The release a refusal line names as the run's, beside the line. */
function refused(line: string): Pick<ReplayFailure, 'mismatch' | 'release'> {
  return { mismatch: line, release: /began on release (\S+),/.exec(line)![1]! };
}

export interface ReplayReport {
  checked: number;
  failures: ReplayFailure[];
}

/** How many open runs began on each release other than the code checked's (every release, when that is unknown), most first. */
export type OtherCode = { release: string; runs: number }[];

/** The release a recorded history's run began on, with its type and memo, from its start event. */
function startOf(history: unknown): { workflowType: string; memo: Record<string, unknown>; runId: string } | undefined {
  const started = (history as temporal.api.history.v1.IHistory).events?.[0]?.workflowExecutionStartedEventAttributes;
  if (!started) return undefined;
  const fields = started.memo?.fields ?? {};
  const memo = Object.fromEntries(Object.entries(fields).map(([key, payload]) => [key, defaultPayloadConverter.fromPayload(payload)]));
  return { workflowType: started.workflowType?.name ?? '', memo, runId: started.originalExecutionRunId ?? '' };
}

/** The SDK's determinism error carries the core's nondeterminism message inside a longer text: that message, else the error's first line. */
export function mismatchOf(error: Error): string {
  const refusal = refusalIn(error.message);
  if (refusal !== undefined) return refusal;
  const core = /(\[TMPRL\d+\] )?Nondeterminism error: ((?:[^"\\]|\\.)*)/.exec(error.message);
  if (core) return `${core[1] ?? ''}Nondeterminism error: ${core[2]!.replace(/\\"/g, '"').replace(/\\'/g, "'")}`.trim();
  return error.message.split('\n')[0]!.trim();
}

async function replayAll(
  code: WorkflowCode,
  histories: AsyncIterable<HistoryAndWorkflowId> | Iterable<HistoryAndWorkflowId>,
  onReplayed: (done: number) => void,
  describe: (workflowId: string, runId: string) => Omit<ReplayFailure, 'mismatch' | 'workflowId' | 'runId' | 'release'>,
): Promise<ReplayReport> {
  const failures: ReplayFailure[] = [];
  let checked = 0;
  for await (const result of Worker.runReplayHistories({ workflowBundle: code }, histories)) {
    checked += 1;
    onReplayed(checked);
    if (result.error) {
      const mismatch = mismatchOf(result.error);
      failures.push({
        ...describe(result.workflowId, result.runId),
        workflowId: result.workflowId,
        runId: result.runId,
        ...(refusalIn(mismatch) !== undefined ? refused(mismatch) : { mismatch }),
      });
    }
  }
  return { checked, failures };
}

/**
 * Replays every run of these workflow types open on the client's namespace (a shared namespace may hold other
 * applications' runs), its history fetched from the server, and counts the runs begun on other code than
 * `release`, the code checked's. With `boundary` (the code checked is this release's), a run whose memo names
 * a release it does not run is named first, and not replayed.
 */
export async function replayOpenRuns(
  client: Client,
  code: { bundle: WorkflowCode; release: string | undefined },
  workflowTypes: readonly string[],
  onReplayed: (done: number, total: number) => void,
  boundary = false,
): Promise<ReplayReport & { otherCode: OtherCode }> {
  const query = `ExecutionStatus = 'Running' AND WorkflowType IN (${workflowTypes.map((type) => `'${type}'`).join(', ')})`;
  const { count: total } = await client.workflow.count(query);
  const refusals: ReplayFailure[] = [];
  const toReplay: { workflowId: string; runId: string }[] = [];
  const began = new Map<string, string>();
  for await (const execution of client.workflow.list({ query })) {
    began.set(execution.runId, releaseOfMemo(execution.memo));
    const refusal = boundary ? refusalOf({ workflowType: execution.type, workflowId: execution.workflowId, memo: execution.memo }) : undefined;
    if (refusal !== undefined)
      refusals.push({ kind: 'open', workflowId: execution.workflowId, runId: execution.runId, began: began.get(execution.runId)!, ...refused(refusal) });
    else toReplay.push({ workflowId: execution.workflowId, runId: execution.runId });
  }
  async function* histories(): AsyncIterable<HistoryAndWorkflowId> {
    for (const { workflowId, runId } of toReplay) yield { workflowId, history: await client.workflow.getHandle(workflowId, runId).fetchHistory() };
  }
  const replayed = await replayAll(
    code.bundle,
    histories(),
    (done) => onReplayed(refusals.length + done, total),
    (_workflowId, runId) => ({ kind: 'open', began: began.get(runId)! }),
  );
  const counts = new Map<string, number>();
  for (const release of began.values()) if (release !== code.release) counts.set(release, (counts.get(release) ?? 0) + 1);
  const otherCode = [...counts].map(([release, runs]) => ({ release, runs })).sort((a, b) => b.runs - a.runs || a.release.localeCompare(b.release));
  return { checked: refusals.length + replayed.checked, failures: [...refusals, ...replayed.failures], otherCode };
}

/** A schedule created before this release: its action starts runs without the release, which this release refuses. */
export interface ScheduleBeforeBoundary {
  scheduleId: string;
  /** The release its action's memo names (0.1.0 when none). */
  release: string;
  /** What to do, in one line. */
  line: string;
}

/** The project's schedules (their action starts one of these workflow types) created on a release this one does not run. */
export async function schedulesBeforeBoundary(client: Client, workflowTypes: readonly string[]): Promise<ScheduleBeforeBoundary[]> {
  const found: ScheduleBeforeBoundary[] = [];
  for await (const summary of client.schedule.list()) {
    if (summary.action === undefined || !workflowTypes.includes(summary.action.workflowType)) continue;
    const described = await client.schedule.getHandle(summary.scheduleId).describe();
    const release = releaseOfMemo(described.action.memo);
    if (runsRunsOf(release)) continue;
    // `review schedule` names a sweep schedule `gates-NAME`.
    const name = summary.scheduleId.replace(/^gates-/, '');
    found.push({
      scheduleId: summary.scheduleId,
      release,
      line: `schedule ${summary.scheduleId} was created on release ${release}: release ${RELEASE} refuses every run it starts; delete it and create it again (\`commonplace review schedule delete ${name}\`, then \`commonplace review schedule create ${name}\` with its options)`,
    });
  }
  return found;
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

/** Replays each recorded history under a directory (with `boundary`, as replayOpenRuns: a history of a run begun on a release the code does not run is named, unreplayed). */
export async function replayRecorded(
  dir: string,
  code: WorkflowCode,
  onReplayed: (done: number, total: number) => void,
  boundary = false,
): Promise<ReplayReport> {
  const recorded = recordedHistories(dir);
  // One history at a time, so each result is matched to its file even when two files share a workflow ID.
  const failures: ReplayFailure[] = [];
  let checked = 0;
  for (const entry of recorded) {
    const start = startOf(entry.history);
    const began = releaseOfMemo(start?.memo);
    // The line this release's workers refuse the run in, from its start event, or undefined.
    const refusal =
      boundary && start !== undefined ? refusalOf({ workflowType: start.workflowType, workflowId: entry.workflowId, memo: start.memo }) : undefined;
    if (refusal !== undefined) {
      failures.push({ kind: 'recorded', file: entry.file, workflowId: entry.workflowId, runId: start!.runId, began, ...refused(refusal) });
      checked += 1;
      onReplayed(checked, recorded.length);
      continue;
    }
    const report = await replayAll(
      code,
      [{ workflowId: entry.workflowId, history: entry.history }],
      () => undefined,
      () => ({ kind: 'recorded', file: entry.file, began }),
    );
    checked += report.checked;
    failures.push(...report.failures);
    onReplayed(checked, recorded.length);
  }
  return { checked, failures };
}
