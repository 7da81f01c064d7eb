/**
 * The editing runs' client side, loaded when a command runs: starting, continuing and following a
 * full pass or revision, finding a run by its ID, and how its stops and end read (text or `--json`).
 */
import { sha256 } from '../../fs/digest.js';
import { WorkflowIdConflictPolicy, WorkflowIdReusePolicy, WorkflowNotFoundError, WorkflowUpdateFailedError, type Client, type WorkflowHandle, type WorkflowOptions } from '@temporalio/client';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { findCheckout } from '../../kb/checkout.js';
import { noteParts } from '../../review/hash.js';
import { notePathProblem } from '../../review/paths.js';
import { editRunId, editWorkflowId, kindOfWorkflowId, optionsDifference } from '../../review/edit/identity.js';
import { openCheckout } from '../shared/checkout.js';
import { readRunRecord, runDirOf } from '../../review/edit/runs.js';
import type { EditKind, EditOptions, EditProgress, EditRunInput, EditSummary, FullPassOptions } from '../../review/edit/types.js';
import { STOP_RULES, type RunStatus, type Stop } from '../../runs/stop.js';
import * as fullPassWorkflow from '../../workflows/full-pass.js';
import * as reviseWorkflow from '../../workflows/revise.js';
import { CommonplaceKind, CommonplaceProfile, CommonplaceStatus, CommonplaceSubject, TASK_QUEUE } from '../../search-attributes.js';
import { connectClient } from '../shared/connection.js';
import { rootMessage, UserError } from '../shared/errors.js';
import { portable, shown, warnUnheld } from '../shared/places.js';
import { checkoutRoot as checkoutPlace } from '../../places.js';
import { checkLaunchInputs } from '../shared/input-checks.js';
import { follow } from '../shared/follow.js';
import { printJson } from '../shared/json-output.js';
import { runDetails } from '../../runs/run-details.js';
import { nextLine, nextStep, stopDetails, type NextCommands } from '../shared/stop-format.js';
import type { EditCommandOptions } from './review-full-pass.js';
import { capNotApplied, parseMaxCost, resumeRequest, spendLines } from '../shared/spend.js';
import { spendLine } from '../../runs/spend.js';


/** The note a command names, repository-relative, with its text; refuses what is not a note of the checkout. */
export async function resolveNote(checkout: string, written: string): Promise<{ note: string; text: string }> {
  const absolute = path.resolve(process.cwd(), written);
  let relative = path.relative(checkout, absolute).split(path.sep).join('/');
  if (relative.startsWith('..') || path.isAbsolute(relative)) {
    // A repository-relative path typed from elsewhere (`kb/notes/x.md`).
    relative = written.replace(/\\/g, '/').replace(/^\.\//, '');
  }
  const problem = notePathProblem(relative);
  if (problem !== undefined) throw new UserError(`${written}: ${problem}`);
  const text = await readFile(path.join(checkout, ...relative.split('/')), 'utf8').catch(() => undefined);
  if (text === undefined) throw new UserError(`${written}: no such note in ${checkout}`);
  const parts = noteParts(text, relative);
  if (!parts.ok) throw new UserError(`${relative}: its frontmatter cannot be read (${parts.findings.map((finding) => finding.message).join('; ')}); fix it first`);
  if (parts.frontmatter === undefined) throw new UserError(`${relative} is plain text (no frontmatter), not a note`);
  return { note: relative, text };
}

/** Whether the directory is inside a Git working tree (a `.git` directory or file above it). */
async function hasGit(dir: string): Promise<boolean> {
  for (let current = dir; ; current = path.dirname(current)) {
    if (await stat(path.join(current, '.git')).then(() => true, () => false)) return true;
    if (path.dirname(current) === current) return false;
  }
}

/** The workflow definitions of each kind of editing run: started, queried and updated through these. */
export const EDIT_WORKFLOWS = { 'full-pass': fullPassWorkflow, revise: reviseWorkflow } as const;
export type EditWorkflow = typeof fullPassWorkflow.fullPass | typeof reviseWorkflow.revise;
/** How an editing run closed: its summary, with the stop that ended it when it ended exhausted. */
export type ClosedEdit = EditSummary & { status?: RunStatus; stop?: Stop };

/** The commands an editing run's stops lead to. */
export function editNext(run: { kind: EditKind; note: string; runId: string }): NextCommands {
  const rerun = `commonplace review run ${run.kind} ${run.note}`;
  return {
    resume: rerun,
    approve: (proposal) => `commonplace review approve ${run.runId} ${proposal.path} --key ${proposal.key}`,
    acknowledge: `commonplace review acknowledge ${run.runId}`,
    ended: `${rerun}   (starts a fresh run over the same note text)`,
  };
}

/** A conflict's one next command: a changed note gets a new run; a changed brief means this run cannot publish. */
function conflictNext(progress: EditProgress, paths: readonly string[]): string[] {
  const rerun = `commonplace review run ${progress.kind} ${progress.note}`;
  if (paths.includes(progress.note)) return [`  to keep the note as it is now: run \`${rerun}\` — the edited note gets a new run, and this one is cancelled (restoring the note instead lets the same command publish this run's text)`];
  return [`  next: commonplace review cancel ${progress.runId}   (this run cannot publish over the changed brief; restoring ${paths.join(', ')} instead lets \`${rerun}\` publish it)`];
}

/** What a stop reads like to the operator, with the one command to type next. */
export function formatEditStop(progress: EditProgress): string {
  const lines: string[] = [];
  for (const stop of progress.stops) {
    const waiting = stop.kind === 'awaiting-approval';
    lines.push(`${progress.kind} ${progress.runId} ${waiting ? 'waits for approval' : 'stopped'}: ${stop.kind} (${stop.disposition})`, `  ${stop.reason}`, ...stopDetails(stop, '  ', progress.runDir));
  }
  const first = progress.stops[0];
  if (first?.kind === 'conflict') return [...lines, ...conflictNext(progress, first.paths ?? [])].join('\n');
  if (first !== undefined && STOP_RULES[first.kind].by === 'resume') lines.push('  nothing accepted so far is asked again');
  lines.push(...nextLine(progress.stops, progress.status, editNext(progress)));
  return lines.join('\n');
}

/** Whether a run ended exhausted: its summary's outcome says so (older results carried a status). */
const endedExhausted = (summary: ClosedEdit) => summary.outcome === 'exhausted' || summary.status === 'exhausted';

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

/** The run command over the note again: after a run ended, it starts a fresh run over the same text. */
const rerunOf = (run: { kind: EditKind; note: string }) => `commonplace review run ${run.kind} ${run.note}`;

/** The one next command of an editing run's stop (a conflict's too), as `--json` gives it. */
export function editNextCommand(progress: EditProgress): string | undefined {
  const first = progress.stops[0];
  if (first?.kind === 'conflict') {
    return (first.paths ?? []).includes(progress.note) ? rerunOf(progress) : `commonplace review cancel ${progress.runId}`;
  }
  return nextStep(progress.stops, progress.status, { ...editNext(progress), ended: rerunOf(progress) })?.command;
}

/** The end of a run with, when it ended exhausted, the one step left (for `--json`). */
function editResult(summary: ClosedEdit): { text: string; status: 'completed' | 'exhausted'; next?: string } {
  const formatted = formatEditSummary(summary);
  if (formatted.status !== 'exhausted') return formatted;
  return { ...formatted, next: rerunOf(summary) };
}

/** Progress lines of an editing run: its stage, and its spend once a launch ran or a cap is set. */
const editLine = (progress: EditProgress) => `${progress.runId}: ${progress.stage}${progress.spend && (progress.spend.launches > 0 || progress.spend.capUsd !== undefined) ? `; ${spendLine(progress.spend)}` : ''}`;

/**
 * Follows an editing run until it completes (exit 0), stops or waits for approval (exit 2, the stop
 * printed with the next command), or ends exhausted (exit 2); a failure of the workflow is exit 1.
 */
export async function followEdit(handle: WorkflowHandle<EditWorkflow>, kind: EditKind, json = false): Promise<void> {
  await follow(handle, { query: EDIT_WORKFLOWS[kind].progressQuery, line: editLine, stopped: formatEditStop, result: editResult, next: editNextCommand, json });
}

/** Runs of the same kind over an earlier text of the note: they can never publish, so a new run ends them. */
async function cancelSuperseded(client: Client, kind: EditKind, note: string, workflowId: string): Promise<void> {
  const query = `${CommonplaceKind.name} = "${kind}" AND ${CommonplaceSubject.name} = ${JSON.stringify(note)} AND ExecutionStatus = "Running"`;
  for await (const execution of client.workflow.list({ query })) {
    if (execution.workflowId === workflowId) continue;
    await client.workflow.getHandle(execution.workflowId).cancel();
    process.stderr.write(`cancelled ${execution.workflowId}: it ran over an earlier text of ${note}, which it could no longer publish\n`);
  }
}

/** A new run, ready to start: its options (recorded in the memo) and how its workflow starts, typed by its definition. */
export interface NewEditRun {
  options: EditOptions;
  start: (client: Client, base: EditRunInput, workflowOptions: WorkflowOptions) => Promise<WorkflowHandle<EditWorkflow>>;
}

export interface EditStart {
  kind: EditKind;
  noteArg: string;
  options: EditCommandOptions;
  /** The options this command asks for explicitly: compared with a run's recorded ones. */
  asked: Partial<EditOptions>;
  /** A new run from the asked options and the defaults; throws when a new run cannot start so. */
  newRun: (asked: Partial<EditOptions>) => NewEditRun;
}

/** The Web UI's static details of a new editing run: the note and its text, the options, the caps, the checkout. */
function editDetails(kind: EditKind, note: string, noteSha256: string, options: EditOptions, base: EditRunInput): string {
  const work = 'mode' in options ? (options.mode === 'plan' ? `plan ${options.planSha256?.slice(0, 12) ?? ''}` : 'assess (an assessment chooses the passes)') : undefined;
  return runDetails(`${kind} of ${note}`, [
    ['note', note],
    ['note text (sha256)', noteSha256.slice(0, 12)],
    ['profile', options.profile],
    ['work', work],
    ['direction', 'direction' in options ? options.direction : undefined],
    ['max cost (USD)', base.maxCostUsd],
    ['concurrency', base.concurrency],
    ['checkout', base.checkout],
    ['run', base.runId],
  ]);
}

function positive(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new UserError(`--${name} must be a positive whole number, got "${text}"`);
  return value;
}

/**
 * Starts, continues or attaches to the run over the note's current text. Its workflow ID comes from
 * the kind, the note path and the text's hash, so the same command continues the same run; options
 * a repeat asks for must be the run's own. Repeating never approves: a run waiting on the operator
 * just shows its stop again.
 */
export async function startOrContinue(start: EditStart): Promise<void> {
  // Bad option values are refused before anything is read or written.
  const concurrency = positive('concurrency', start.options.concurrency, 4);
  const maxCostUsd = parseMaxCost(start.options.maxCost);
  const checkout = findCheckout(process.cwd(), start.options.kb).root;
  const { note, text } = await resolveNote(checkout, start.noteArg);
  if (!(await hasGit(checkout))) throw new UserError(`the checkout guard needs Git: ${checkout} is not inside a Git working tree; run \`git init\` and commit the KB first`);
  // The server first: an unreachable one is refused before the checkout is set up for runs.
  const client = await connectClient();
  const noteSha256 = sha256(text);
  const id = await openCheckout(checkout);
  const workflowId = editWorkflowId(start.kind, id, note, noteSha256);
  const runId = editRunId(start.kind, note, noteSha256, sha256(note));
  const definitions = EDIT_WORKFLOWS[start.kind];
  const handle = client.workflow.getHandle<EditWorkflow>(workflowId);
  const described = await handle.describe().catch((error: unknown) => {
    if (error instanceof WorkflowNotFoundError) return undefined;
    throw error;
  });

  const recordedCheckout = described?.memo?.checkout as string | undefined;
  if (described && recordedCheckout !== undefined && recordedCheckout !== checkout && recordedCheckout !== checkoutPlace(id) && described.status.name !== 'FAILED' && described.status.name !== 'CANCELLED' && described.status.name !== 'TERMINATED') {
    throw new UserError(`${workflowId} is a run over the same text of ${note} in another checkout (${shown(recordedCheckout)}); run it there`);
  }
  const recordedOptions = (described?.memo?.options as EditOptions | undefined) ?? (await readRunRecord(checkout, runId))?.options;
  const refuseDifferent = () => {
    if (!recordedOptions) return;
    const differences = optionsDifference(
      recordedOptions,
      { ...recordedOptions, ...Object.fromEntries(Object.entries(start.asked).filter(([, value]) => value !== undefined)) } as EditOptions,
    );
    if (differences.length > 0) {
      throw new UserError(
        `${start.kind} ${runId} over this text of ${note} was started with other options: ${differences.join('; ')}. Repeat it without them, or end it first (commonplace review cancel ${runId})`,
      );
    }
  };

  if (described?.status.name === 'RUNNING') {
    refuseDifferent();
    const progress = await handle.query(definitions.progressQuery).catch(() => undefined);
    const stop = progress?.stops[0];
    if (progress?.status === 'stopped' && stop !== undefined && STOP_RULES[stop.kind].by === 'resume') {
      process.stderr.write(`resuming ${workflowId} (stopped: ${progress.stops.map((each) => each.kind).join(', ')})\n`);
      await handle.executeUpdate(definitions.resumeUpdate, { args: [resumeRequest(maxCostUsd)] }).catch((error: unknown) => {
        // A refusal by the resume validator (a spend-limit stop without a higher cap) is a stop the operator acts on: exit 2.
        throw new UserError(`cannot resume ${runId}: ${rootMessage(error)}`, error instanceof WorkflowUpdateFailedError ? 2 : 1);
      });
    } else {
      process.stderr.write(`attaching to ${workflowId}${capNotApplied(maxCostUsd)}\n`);
    }
    if (start.options.detach) return;
    return followEdit(handle, start.kind, start.options.json);
  }
  let reuse: WorkflowIdReusePolicy = WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY;
  if (described?.status.name === 'COMPLETED') {
    refuseDifferent();
    const closed: ClosedEdit = await handle.result();
    if (!endedExhausted(closed)) {
      process.stderr.write(`${workflowId} already ran over this text of ${note}\n`);
      if (start.options.json) printJson('run-outcome', 1, { workflowId, runId: closed.runId, status: 'completed', exitCode: 0, result: closed });
      else process.stdout.write(`${formatEditSummary(closed).text}\n`);
      return;
    }
    // An exhausted run ended for good: the same command starts a fresh run over the same text.
    process.stderr.write(`${workflowId} ended exhausted earlier (${closed.stop?.kind ?? 'its budget was spent'}); starting a fresh run over the same text\n`);
    reuse = WorkflowIdReusePolicy.ALLOW_DUPLICATE;
  } else if (described) {
    process.stderr.write(`${workflowId} ended ${described.status.name.toLowerCase()} earlier; starting it again\n`);
  }

  const fresh = start.newRun(start.asked);
  const base: EditRunInput = {
    checkout,
    note,
    noteSha256,
    runId,
    concurrency,
    ...(maxCostUsd !== undefined && { maxCostUsd }),
    ...(start.options.profiles && { profilesFile: path.resolve(start.options.profiles) }),
    ...(start.options.scenario && { env: { COMMONPLACE_FAKE_SCENARIO: path.resolve(start.options.scenario) } }),
  };
  checkLaunchInputs({ ...base, profile: fresh.options.profile });
  await cancelSuperseded(client, start.kind, note, workflowId);
  await warnUnheld(client, checkout);
  // The input names the checkout by its ID and paths relative to it.
  const carried = await portable(base, checkout);
  const started = await fresh.start(client, carried, {
    taskQueue: TASK_QUEUE,
    workflowId,
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
    workflowIdReusePolicy: reuse,
    memo: { runId, note, checkout: carried.checkout, options: fresh.options },
    staticSummary: `${start.kind} of ${note} (text ${noteSha256.slice(0, 12)}, ${fresh.options.profile})`,
    staticDetails: editDetails(start.kind, note, noteSha256, fresh.options, carried),
    typedSearchAttributes: [
      { key: CommonplaceKind, value: start.kind },
      { key: CommonplaceStatus, value: 'running' },
      { key: CommonplaceSubject, value: note },
      { key: CommonplaceProfile, value: fresh.options.profile },
    ],
  });
  process.stderr.write(`started ${workflowId} (run ${runId}, directory ${runDirOf(checkout, runId)})\n`);
  if (start.options.detach) return;
  await followEdit(started, start.kind, start.options.json);
}

/** A run ID's workflow and directory, from its run.json: known before any server is asked. */
export async function recordedRun(kb: string | undefined, run: string): Promise<{ checkout: string; runId: string; workflowId: string; runDir: string }> {
  const checkout = findCheckout(process.cwd(), kb).root;
  const workflowId = (await readRunRecord(checkout, run))?.workflowId;
  if (!workflowId) throw new UserError(`no run ${run} in ${checkout} (no ${path.join(runDirOf(checkout, run), 'run.json')})`);
  return { checkout, runId: run, workflowId, runDir: runDirOf(checkout, run) };
}

/** Finds a run by its run ID (its directory's run.json) or its workflow ID. */
export async function resolveRun(client: Client, kb: string | undefined, run: string): Promise<{ checkout: string; runId: string; workflowId: string; runDir: string; kind: EditKind; handle: WorkflowHandle<EditWorkflow> }> {
  const checkout = findCheckout(process.cwd(), kb).root;
  let runId = run;
  let workflowId: string | undefined;
  if (run.includes('/')) {
    workflowId = run;
    const described = await client.workflow.getHandle(run).describe().catch(() => undefined);
    runId = (described?.memo?.runId as string | undefined) ?? '';
    if (!runId) throw new UserError(`no editing run with workflow ID ${run}`);
  } else {
    workflowId = (await recordedRun(kb, run)).workflowId;
  }
  const kind = kindOfWorkflowId(workflowId);
  if (kind === undefined) throw new UserError(`${workflowId} is not the workflow of an editing run (full-pass/… or revise/…)`);
  return { checkout, runId, workflowId, runDir: runDirOf(checkout, runId), kind, handle: client.workflow.getHandle<EditWorkflow>(workflowId) };
}


/** `commonplace review run full-pass <note>`: starts, continues or follows the full pass over the note's current text. */
export async function runFullPass(noteArg: string, options: EditCommandOptions & { direction?: string }): Promise<void> {
  const asked: Partial<FullPassOptions> = { ...(options.profile !== undefined && { profile: options.profile }), ...(options.direction !== undefined && { direction: options.direction }) };
  await startOrContinue({
    kind: 'full-pass',
    noteArg,
    options,
    asked,
    newRun: () => {
      const chosen: FullPassOptions = { profile: asked.profile ?? 'claude', direction: asked.direction ?? null };
      return { options: chosen, start: (client, base, workflowOptions) => client.workflow.start(fullPassWorkflow.fullPass, { ...workflowOptions, args: [{ ...base, options: chosen }] }) };
    },
  });
}
