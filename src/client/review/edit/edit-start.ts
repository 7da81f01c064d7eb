/**
 * Starting or continuing an editing run (a full pass or a revision), shared by `review run full-pass`
 * and `review run revise`: the options they share read once at the boundary, the note resolved, then
 * one start-or-continue over the note's current text.
 */
import { memoFromWords, memoInWords } from '../../../place-words.js';
import {
  WorkflowIdConflictPolicy,
  WorkflowIdReusePolicy,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  type Client,
  type WorkflowHandle,
  type WorkflowOptions,
} from '@temporalio/client';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { sha256 } from '../../../fs/digest.js';
import { checkoutRoot as checkoutPlace, knownCheckoutId, openCheckout } from '../../../checkout/index.js';
import { editRunId, optionsDifference } from '../../../review/edit/identity.js';
import { editWorkflowId } from '../../../runs/workflow-ids.js';
import { readRunRecord, runDirOf } from '../../../review/edit/runs.js';
import type { EditKind, EditOptions, EditRunInput } from '../../../review/edit/types.js';
import { noteParts } from '../../../review/hash.js';
import { notePathProblem } from '../../../review/paths.js';
import { markdownText, runDetails } from '../../../runs/run-details.js';
import { STOP_RULES } from '../../../runs/stop.js';
import { CommonplaceKind, CommonplaceSubject, startingAttributes, TASK_QUEUE } from '../../../search-attributes.js';
import { checkoutRootOf, portable, warnUnheld } from '../../shared/checkout.js';
import { connectClient } from '../../shared/connection.js';
import { requireSearchAttributes } from '../../shared/preflight.js';
import { rootMessage, UserError } from '../../shared/errors.js';
import { checkLaunchInputs } from '../../shared/input-checks.js';
import { printJson } from '../../shared/json-output.js';
import { flag, maxCostOption, parseOptions, positiveWhole } from '../../shared/options.js';
import { rendered as shown } from '../../shared/render-paths.js';
import { capNotApplied, resumeRequest } from '../../shared/spend.js';
import { EDIT_WORKFLOWS, endedExhausted, followEdit, formatEditSummary, type ClosedEdit, type EditWorkflow } from '../shared/edit-follow.js';
import { runCommand } from '../../../runs/run-commands.js';
import { pathExists } from '../../../fs/exists.js';

/** The options every editing run shares, as commander hands them (edit-options.ts registers them). */
export interface EditCommandOptions {
  profile?: string;
  concurrency?: string;
  kb?: string;
  profiles?: string;
  scenario?: string;
  detach?: boolean;
  maxCost?: string;
  json?: boolean;
}

/** The shared options in the order their checks run (the first bad one is the message). */
const EDIT_FIELDS = z.object({
  concurrency: positiveWhole('concurrency').optional(),
  maxCost: maxCostOption,
  kb: z.string().optional(),
  profiles: z.string().optional(),
  scenario: z.string().optional(),
  detach: flag,
  json: flag,
});

/** An editing command's shared options, read once: its checkout resolved, its numbers and files checked. */
export interface EditRequest {
  checkout: string;
  concurrency: number;
  maxCostUsd?: number;
  profilesFile?: string;
  env?: Record<string, string>;
  detach: boolean;
  json: boolean;
}

/** Reads an editing command's shared options once, at the boundary; bad values are one-line usage errors (exit 1). */
export function parseEditCommand(raw: EditCommandOptions): EditRequest {
  const options = parseOptions(EDIT_FIELDS, raw);
  return {
    checkout: checkoutRootOf(options.kb),
    concurrency: options.concurrency ?? 4,
    ...(options.maxCost !== undefined && { maxCostUsd: options.maxCost }),
    ...(options.profiles && { profilesFile: path.resolve(options.profiles) }),
    ...(options.scenario && { env: { COMMONPLACE_FAKE_SCENARIO: path.resolve(options.scenario) } }),
    detach: options.detach ?? false,
    json: options.json ?? false,
  };
}

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
  if (!parts.ok)
    throw new UserError(`${relative}: its frontmatter cannot be read (${parts.findings.map((finding) => finding.message).join('; ')}); fix it first`);
  if (parts.frontmatter === undefined) throw new UserError(`${relative} is plain text (no frontmatter), not a note`);
  return { note: relative, text };
}

/** Whether the directory is inside a Git working tree (a `.git` directory or file above it). */
async function hasGit(dir: string): Promise<boolean> {
  for (let current = dir; ; current = path.dirname(current)) {
    if (await pathExists(path.join(current, '.git'))) return true;
    if (path.dirname(current) === current) return false;
  }
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
  request: EditRequest;
  /** The options this command asks for explicitly: compared with a run's recorded ones. */
  asked: Partial<EditOptions>;
  /** A new run from the asked options and the defaults; throws when a new run cannot start so. */
  newRun: (asked: Partial<EditOptions>) => NewEditRun;
  /** What the checkout must hold for this kind of run, checked before anything starts (a full pass: the critique instruction). */
  check?: (checkout: string) => Promise<void>;
}

/** The Web UI's static details of a new editing run: the note and its text, the options, the caps, the checkout. */
function editDetails(kind: EditKind, note: string, noteSha256: string, options: EditOptions, base: EditRunInput): string {
  const work =
    'mode' in options ? (options.mode === 'plan' ? `plan ${options.planSha256?.slice(0, 12) ?? ''}` : 'assess (an assessment chooses the passes)') : undefined;
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

/**
 * Starts, continues or attaches to the run over the note's current text: its workflow ID is the kind, note
 * and text hash, so a repeat continues it, with the run's own options. Repeating never approves: a stop shows again.
 */
export async function startOrContinue(start: EditStart): Promise<void> {
  // Bad option values were refused at the boundary (parseEditCommand), before anything is read or written.
  const { checkout } = start.request;
  const { note, text } = await resolveNote(checkout, start.noteArg);
  if (!(await hasGit(checkout)))
    throw new UserError(`the checkout guard needs Git: ${checkout} is not inside a Git working tree; run \`git init\` and commit the KB first`);
  await start.check?.(checkout);
  // The server first: an unreachable one is refused before the checkout is set up for runs.
  const client = await connectClient();
  await requireSearchAttributes(client);
  const noteSha256 = sha256(text);
  const id = await knownCheckoutId(checkout);
  const workflowId = editWorkflowId(start.kind, id, note, noteSha256);
  const runId = editRunId(start.kind, note, noteSha256, sha256(note), client.options.namespace);
  const handle = client.workflow.getHandle<EditWorkflow>(workflowId);
  const described = await handle.describe().catch((error: unknown) => {
    if (error instanceof WorkflowNotFoundError) return undefined;
    throw error;
  });

  const recordedCheckout = memoFromWords(described?.memo?.checkout as string | undefined);
  if (
    described &&
    recordedCheckout !== undefined &&
    recordedCheckout !== checkout &&
    recordedCheckout !== checkoutPlace(id) &&
    described.status.name !== 'FAILED' &&
    described.status.name !== 'CANCELLED' &&
    described.status.name !== 'TERMINATED'
  ) {
    throw new UserError(`${workflowId} is a run over the same text of ${note} in another checkout (${shown(recordedCheckout)}); run it there`);
  }
  const recordedOptions = memoFromWords(described?.memo?.options as EditOptions | undefined) ?? (await readRunRecord(checkout, runId))?.options;
  const refuseDifferent = () => {
    if (!recordedOptions) return;
    const differences = optionsDifference(recordedOptions, {
      ...recordedOptions,
      ...Object.fromEntries(Object.entries(start.asked).filter(([, value]) => value !== undefined)),
    } as EditOptions);
    if (differences.length > 0) {
      throw new UserError(
        `${start.kind} ${runId} over this text of ${note} was started with other options: ${differences.join('; ')}. Repeat it without them, or end it first (${runCommand.cancel(runId)})`,
      );
    }
  };

  if (described?.status.name === 'RUNNING') {
    refuseDifferent();
    return continueRun(start, handle, runId);
  }
  let reuse: WorkflowIdReusePolicy = WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY;
  if (described?.status.name === 'COMPLETED') {
    refuseDifferent();
    const closed: ClosedEdit = await handle.result();
    if (!endedExhausted(closed)) {
      process.stderr.write(`${workflowId} already ran over this text of ${note}\n`);
      if (start.request.json) printJson('run-outcome', 1, { workflowId, runId: closed.runId, status: 'completed', exitCode: 0, result: closed });
      else process.stdout.write(`${formatEditSummary(closed).text}\n`);
      return;
    }
    // An exhausted run ended for good: the same command starts a fresh run over the same text.
    process.stderr.write(`${workflowId} ended exhausted earlier (${closed.stop?.kind ?? 'its budget was spent'}); starting a fresh run over the same text\n`);
    reuse = WorkflowIdReusePolicy.ALLOW_DUPLICATE;
  } else if (described) {
    process.stderr.write(`${workflowId} ended ${described.status.name.toLowerCase()} earlier; starting it again\n`);
  }

  await startRun(start, client, { note, noteSha256, workflowId, runId, reuse });
}

/** Resumes the running run when a resume ends its stop, else attaches to it; then follows it unless detached. */
async function continueRun(start: EditStart, handle: WorkflowHandle<EditWorkflow>, runId: string): Promise<void> {
  const { maxCostUsd } = start.request;
  const definitions = EDIT_WORKFLOWS[start.kind];
  const progress = await handle.query(definitions.progressQuery).catch(() => undefined);
  const stop = progress?.stops[0];
  if (progress?.status === 'stopped' && stop !== undefined && STOP_RULES[stop.kind].by === 'resume') {
    process.stderr.write(`resuming ${handle.workflowId} (stopped: ${progress.stops.map((each) => each.kind).join(', ')})\n`);
    await handle.executeUpdate(definitions.resumeUpdate, { args: [resumeRequest(maxCostUsd)] }).catch((error: unknown) => {
      // A refusal by the resume validator (a spend-limit stop without a higher cap) is a stop the operator acts on: exit 2.
      throw new UserError(`cannot resume ${runId}: ${rootMessage(error)}`, error instanceof WorkflowUpdateFailedError ? 2 : 1);
    });
  } else {
    process.stderr.write(`attaching to ${handle.workflowId}${capNotApplied(maxCostUsd)}\n`);
  }
  if (!start.request.detach) await followEdit(handle, start.kind, start.request.json);
}

/** Starts a new run over the note's text, ending the runs over its earlier texts; then follows it unless detached. */
async function startRun(
  start: EditStart,
  client: Client,
  run: { note: string; noteSha256: string; workflowId: string; runId: string; reuse: WorkflowIdReusePolicy },
): Promise<void> {
  const { checkout, concurrency, maxCostUsd } = start.request;
  const { note, noteSha256, workflowId, runId } = run;
  const fresh = start.newRun(start.asked);
  const base: EditRunInput = {
    checkout,
    note,
    noteSha256,
    runId,
    concurrency,
    ...(maxCostUsd !== undefined && { maxCostUsd }),
    ...(start.request.profilesFile !== undefined && { profilesFile: start.request.profilesFile }),
    ...(start.request.env !== undefined && { env: start.request.env }),
  };
  checkLaunchInputs({ ...base, profile: fresh.options.profile });
  await cancelSuperseded(client, start.kind, note, workflowId);
  await openCheckout(checkout);
  await warnUnheld(client, checkout);
  // The input names the checkout by its ID and paths relative to it.
  const carried = await portable(base, checkout);
  const started = await fresh.start(client, carried, {
    taskQueue: TASK_QUEUE,
    workflowId,
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
    workflowIdReusePolicy: run.reuse,
    memo: memoInWords({ runId, note, checkout: carried.checkout, options: fresh.options }),
    staticSummary: markdownText(`${start.kind} of ${note} (text ${noteSha256.slice(0, 12)}, ${fresh.options.profile})`),
    staticDetails: editDetails(start.kind, note, noteSha256, fresh.options, carried),
    typedSearchAttributes: startingAttributes(start.kind, note, fresh.options.profile),
  });
  process.stderr.write(`started ${workflowId} (run ${runId}, directory ${runDirOf(checkout, runId)})\n`);
  if (!start.request.detach) await followEdit(started, start.kind, start.request.json);
}
