/**
 * Following an editing run (a full pass or a revision), shared by the commands that start one and
 * those that answer its stops (`review approve`, `review acknowledge`) or read it (`review inspect`):
 * its workflow definitions, its progress line, and how its stops and end read (text or `--json`).
 */
import type { WorkflowHandle } from '@temporalio/client';
import path from 'node:path';
import type { EditKind, EditProgress, EditSummary } from '../../../review/edit/types.js';
import { spendLine } from '../../../runs/spend.js';
import { STOP_RULES, type RunStatus, type Stop } from '../../../runs/stop.js';
import * as fullPassWorkflow from '../../../workflows/full-pass.js';
import * as reviseWorkflow from '../../../workflows/revise.js';
import { follow } from '../../shared/follow.js';
import { spendLines } from '../../shared/spend.js';
import { nextLine, nextStep, stopDetails } from '../../shared/stop-format.js';
import { editNext, runCommand } from '../../../runs/run-commands.js';
import { runnable } from '../../shared/command-line.js';

/** The workflow definitions of each kind of editing run: started, queried and updated through these. */
export const EDIT_WORKFLOWS = { 'full-pass': fullPassWorkflow, revise: reviseWorkflow } as const;
export type EditWorkflow = typeof fullPassWorkflow.fullPass | typeof reviseWorkflow.revise;
/** How an editing run closed: its summary, with the stop that ended it when it ended exhausted. */
export type ClosedEdit = EditSummary & { status?: RunStatus; stop?: Stop };

/** A conflict's one next command: a changed note gets a new run; a changed brief means this run cannot publish. */
function conflictNext(progress: EditProgress, paths: readonly string[]): string[] {
  const rerun = runCommand.editRerun(progress);
  if (paths.includes(progress.note))
    return [
      `  to keep the note as it is now: run \`${runnable(rerun)}\` — the edited note gets a new run, and this one is cancelled (restoring the note instead lets the same command publish this run's text)`,
    ];
  return [
    `  next: ${runnable(`${runCommand.cancel(progress.runId)}   (this run cannot publish over the changed brief; restoring ${paths.join(', ')} instead lets \`${rerun}\` publish it)`)}`,
  ];
}

/** What a stop reads like to the operator, with the one command to type next. */
export function formatEditStop(progress: EditProgress): string {
  const lines: string[] = [];
  for (const stop of progress.stops) {
    const waiting = stop.kind === 'awaiting-approval';
    lines.push(
      `${progress.kind} ${progress.runId} ${waiting ? 'waits for approval' : 'stopped'}: ${stop.kind} (${stop.disposition})`,
      `  ${stop.reason}`,
      ...stopDetails(stop, '  ', progress.runDir),
    );
  }
  const first = progress.stops[0];
  if (first?.kind === 'conflict') return [...lines, ...conflictNext(progress, first.paths ?? [])].join('\n');
  if (first !== undefined && STOP_RULES[first.kind].by === 'resume') lines.push('  nothing accepted so far is asked again');
  lines.push(...nextLine(progress.stops, progress.status, editNext(progress), '  ', progress.spend));
  return lines.join('\n');
}

/** Whether a run ended exhausted: its summary's outcome says so (older results carried a status). */
export const endedExhausted = (summary: ClosedEdit) => summary.outcome === 'exhausted' || summary.status === 'exhausted';

/** The end of a run, as the operator reads it, and how it closed. */
export function formatEditSummary(summary: ClosedEdit): { text: string; status: 'completed' | 'exhausted' } {
  if (endedExhausted(summary)) {
    const stops = summary.stop ? [summary.stop] : [];
    const lines = [`${summary.kind} ${summary.runId} ended exhausted${summary.stop ? `: ${summary.stop.kind} (${summary.stop.disposition})` : ''}`];
    if (summary.stop) lines.push(`  ${summary.stop.reason}`, ...stopDetails(summary.stop, '  ', summary.runDir));
    if (summary.runDir) lines.push(`  run directory  ${summary.runDir}`);
    lines.push(...spendLines(summary.spend, '  ', 15));
    lines.push(...nextLine(stops, 'exhausted', editNext(summary)));
    return { text: lines.join('\n'), status: 'exhausted' };
  }
  const lines = [
    `${summary.kind} ${summary.runId} completed: ${summary.outcome === 'published' ? 'the note was edited and published' : 'no edit; the packet and results were published'}`,
    `  decision       ${summary.decision}, closing ${summary.closing}`,
    `  start / final  ${summary.startSha256.slice(0, 12)} / ${summary.finalSha256.slice(0, 12)}`,
    `  written        ${summary.written.length} files${summary.outcome === 'published' ? `, the note ${summary.note} among them` : ''}`,
    `  launches       ${summary.launches}`,
    ...spendLines(summary.spend, '  ', 15),
    `  packet         ${path.join(summary.runDir, summary.packet)}`,
  ];
  return { text: lines.join('\n'), status: 'completed' };
}

/** The one next command of an editing run's stop (a conflict's too), as `--json` gives it. */
export function editNextCommand(progress: EditProgress): string | undefined {
  const first = progress.stops[0];
  if (first?.kind === 'conflict') {
    return (first.paths ?? []).includes(progress.note) ? runCommand.editRerun(progress) : runCommand.cancel(progress.runId);
  }
  return nextStep(progress.stops, progress.status, { ...editNext(progress), ended: runCommand.editRerun(progress) }, progress.spend)?.command;
}

/** The end of a run with, when it ended exhausted, the one step left (for `--json`). */
function editResult(summary: ClosedEdit): { text: string; status: 'completed' | 'exhausted'; next?: string } {
  const formatted = formatEditSummary(summary);
  if (formatted.status !== 'exhausted') return formatted;
  return { ...formatted, next: runCommand.editRerun(summary) };
}

/** Progress lines of an editing run: its stage, and its spend once a launch ran or a cap is set. */
const editLine = (progress: EditProgress) =>
  `${progress.runId}: ${progress.stage}${progress.spend && (progress.spend.launches > 0 || progress.spend.capUsd !== undefined) ? `; ${spendLine(progress.spend)}` : ''}`;

/**
 * Follows an editing run until it completes (exit 0), stops or waits for approval (exit 2, the stop
 * printed with the next command), or ends exhausted (exit 2); a failure of the workflow is exit 1.
 */
export async function followEdit(handle: WorkflowHandle<EditWorkflow>, kind: EditKind, json = false): Promise<void> {
  await follow(handle, { query: EDIT_WORKFLOWS[kind].progressQuery, line: editLine, stopped: formatEditStop, result: editResult, next: editNextCommand, json });
}
