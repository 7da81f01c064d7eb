import { WorkflowFailedError, WorkflowIdConflictPolicy, WorkflowIdReusePolicy, WorkflowNotFoundError, type Client, type WorkflowHandle } from '@temporalio/client';
import type { Command } from 'commander';
import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { findCheckout } from '../kb/checkout.js';
import { noteParts } from '../review/hash.js';
import { notePathProblem } from '../review/paths.js';
import { editRunId, editWorkflowId, optionsDifference } from '../review/edit/identity.js';
import { readRunRecord, runDirOf } from '../review/edit/runs.js';
import type { EditKind, EditOptions, EditProgress, EditRunInput, EditSummary, FullPassInput, ReviseInput } from '../review/edit/types.js';
import { CommonplaceKind, CommonplaceProfile, CommonplaceStatus, CommonplaceSubject, TASK_QUEUE } from '../search-attributes.js';
import { connectClient } from './connection.js';
import { action, rootMessage, UserError } from './errors.js';

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

export interface EditCommandOptions {
  profile?: string;
  concurrency?: string;
  kb?: string;
  profiles?: string;
  scenario?: string;
  detach?: boolean;
}

/** Adds the options every editing run shares. */
export function editOptions(command: Command): Command {
  return command
    .option('--profile <name>', 'worker profile (default claude; a repeat keeps the run\'s)')
    .option('--concurrency <n>', 'review launches in flight at once', '4')
    .option('--kb <dir>', 'KB checkout (default: the Git root above the current directory that holds kb/)')
    .option('--profiles <file>', 'worker profiles file (default: the KB\'s, else the shipped one)')
    .option('--scenario <file>', 'fake-harness scenario file (profile fake)')
    .option('--detach', 'start or continue the run and return without following it');
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

/** What a stop reads like to the operator, with the command to type next. */
export function formatEditStop(progress: EditProgress): string {
  const stop = progress.stop!;
  const rerun = `commonplace review run ${progress.kind} ${progress.note}`;
  const waiting = stop.kind === 'awaiting-approval';
  const lines = [`${progress.kind} ${progress.runId} ${waiting ? 'waits for approval' : 'stopped'}: ${stop.kind} (${stop.disposition})`, `  ${stop.reason}`];
  if (stop.paths && stop.paths.length > 0) lines.push(`  paths: ${stop.paths.join(', ')}`);
  if (stop.evidence) lines.push(`  evidence: ${stop.evidence}`);
  if (stop.resetAt) lines.push(`  the limit resets at ${stop.resetAt}`);
  const runDir = progress.runDir ?? '';
  if (stop.proposal) {
    lines.push(`  inspect: ${stop.proposal.inspect.map((file) => path.join(runDir, file)).join(', ')}`);
    lines.push(`  key: ${stop.proposal.key}`);
    lines.push(`  approve: commonplace review approve ${progress.runId} ${stop.proposal.path} --key ${stop.proposal.key}`);
  } else if (stop.kind === 'checkout-changed') {
    lines.push(`  read the changes; to own them and go on: commonplace review acknowledge ${progress.runId}`);
  } else if (stop.kind === 'conflict') {
    lines.push(`  to publish this run's text: restore ${(stop.paths ?? []).join(', ')}, then run \`${rerun}\``);
    if (stop.paths?.includes(progress.note)) lines.push(`  to keep the note as it is now: run \`${rerun}\` — the edited note gets a new run, and this one is cancelled`);
    else lines.push(`  to keep the brief as it is now: \`temporal workflow cancel --workflow-id ${progress.workflowId}\`, then \`${rerun}\` starts a new run`);
  } else {
    lines.push(`  nothing accepted so far is asked again; continue with: ${rerun}`);
  }
  return lines.join('\n');
}

/** The end of a run, as the operator reads it. */
export function formatEditSummary(summary: EditSummary): string {
  const lines = [
    `${summary.kind} ${summary.runId} completed: ${summary.outcome === 'published' ? 'the note was edited and published' : 'no edit; the packet and results were published'}`,
    `  decision       ${summary.decision}, closing ${summary.closing}`,
    `  start / final  ${summary.startSha256.slice(0, 12)} / ${summary.finalSha256.slice(0, 12)}`,
    `  written        ${summary.written.length} files${summary.outcome === 'published' ? `, the note ${summary.note} among them` : ''}`,
    `  launches       ${summary.launches}`,
    `  packet         ${path.join(summary.runDir, summary.packet)}`,
  ];
  return lines.join('\n');
}

/**
 * Follows an editing run until it completes (exit 0) or stops (exit 2, the stop printed with the next
 * command); a failure of the workflow is exit 1.
 */
export async function followEdit(handle: WorkflowHandle): Promise<void> {
  let finished = false;
  const result = handle.result().then(
    (summary) => ({ summary: summary as EditSummary }),
    (error: unknown) => ({ error }),
  );
  void result.then(() => (finished = true));
  let lastStage = '';
  for (;;) {
    const race = await Promise.race([result, new Promise<undefined>((done) => setTimeout(() => done(undefined), 400))]);
    if (race) {
      if ('error' in race) throw new UserError(`${handle.workflowId} failed: ${race.error instanceof WorkflowFailedError ? rootMessage(race.error) : (race.error as Error).message}`);
      process.stdout.write(`${formatEditSummary(race.summary)}\n`);
      return;
    }
    let progress: EditProgress;
    try {
      progress = await handle.query<EditProgress>('progress');
    } catch (error) {
      if (finished) continue;
      if (/not found|no worker|timed out|not exist|unknown/i.test((error as Error).message)) continue; // no worker yet, or the workflow has not set its handlers
      throw error;
    }
    if (progress.status === 'stopped' || progress.status === 'awaiting-approval') {
      process.stdout.write(`${formatEditStop(progress)}\n`);
      process.exitCode = 2;
      return;
    }
    if (progress.stage !== lastStage) {
      process.stderr.write(`${progress.runId}: ${progress.stage}\n`);
      lastStage = progress.stage;
    }
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

export interface EditStart {
  kind: EditKind;
  workflowType: 'fullPass' | 'revise';
  noteArg: string;
  options: EditCommandOptions;
  /** The options this command asks for explicitly: compared with a run's recorded ones. */
  asked: Partial<EditOptions>;
  /** A new run's options and extra input, from the asked ones and the defaults; throws when a new run cannot start so. */
  newRun: (asked: Partial<EditOptions>) => { options: EditOptions; extra?: Partial<ReviseInput> };
}

function positive(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new UserError(`--${name} must be a positive whole number, got "${text}"`, 2);
  return value;
}

/**
 * Starts, continues or attaches to the run over the note's current text. Its workflow ID comes from
 * the kind, the note path and the text's hash, so the same command continues the same run; options
 * a repeat asks for must be the run's own. Repeating never approves: a run waiting on the operator
 * just shows its stop again.
 */
export async function startOrContinue(start: EditStart): Promise<void> {
  const checkout = findCheckout(process.cwd(), start.options.kb).root;
  const { note, text } = await resolveNote(checkout, start.noteArg);
  if (!(await hasGit(checkout))) throw new UserError(`the checkout guard needs Git: ${checkout} is not inside a Git working tree; run \`git init\` and commit the KB first`);
  const noteSha256 = sha256(text);
  const workflowId = editWorkflowId(start.kind, note, noteSha256);
  const runId = editRunId(start.kind, note, noteSha256, sha256(note));
  const concurrency = positive('concurrency', start.options.concurrency, 4);
  const client = await connectClient();
  const handle = client.workflow.getHandle(workflowId);
  const described = await handle.describe().catch((error: unknown) => {
    if (error instanceof WorkflowNotFoundError) return undefined;
    throw error;
  });

  const recordedCheckout = described?.memo?.checkout as string | undefined;
  if (described && recordedCheckout !== undefined && recordedCheckout !== checkout && described.status.name !== 'FAILED' && described.status.name !== 'CANCELLED' && described.status.name !== 'TERMINATED') {
    throw new UserError(`${workflowId} is a run over the same text of ${note} in another checkout (${recordedCheckout}); run it there`);
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
        `${start.kind} ${runId} over this text of ${note} was started with other options: ${differences.join('; ')}. Repeat it without them, or end it first (temporal workflow cancel --workflow-id ${workflowId})`,
      );
    }
  };

  if (described?.status.name === 'RUNNING') {
    refuseDifferent();
    const progress = await handle.query<EditProgress>('progress').catch(() => undefined);
    if (progress?.status === 'stopped' && progress.stop && progress.stop.kind !== 'checkout-changed') {
      process.stderr.write(`resuming ${workflowId} (stopped: ${progress.stop.kind})\n`);
      await handle.executeUpdate('resume').catch((error: unknown) => {
        throw new UserError(`cannot resume ${runId}: ${rootMessage(error)}`);
      });
    } else {
      process.stderr.write(`attaching to ${workflowId}\n`);
    }
    if (start.options.detach) return;
    return followEdit(handle);
  }
  if (described?.status.name === 'COMPLETED') {
    refuseDifferent();
    process.stderr.write(`${workflowId} already ran over this text of ${note}\n`);
    process.stdout.write(`${formatEditSummary((await handle.result()) as EditSummary)}\n`);
    return;
  }

  const fresh = start.newRun(start.asked);
  const input: EditRunInput & { options: EditOptions } = {
    checkout,
    note,
    noteSha256,
    runId,
    concurrency,
    options: fresh.options,
    ...(start.options.profiles && { profilesFile: path.resolve(start.options.profiles) }),
    ...(start.options.scenario && { env: { COMMONPLACE_FAKE_SCENARIO: path.resolve(start.options.scenario) } }),
    ...fresh.extra,
  };
  if (described) process.stderr.write(`${workflowId} ended ${described.status.name.toLowerCase()} earlier; starting it again\n`);
  await cancelSuperseded(client, start.kind, note, workflowId);
  const started = await client.workflow.start(start.workflowType, {
    taskQueue: TASK_QUEUE,
    workflowId,
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
    workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
    args: [input as FullPassInput & ReviseInput],
    memo: { runId, note, checkout, options: fresh.options },
    staticSummary: `${start.kind} of ${note} (text ${noteSha256.slice(0, 12)}, ${fresh.options.profile})`,
    typedSearchAttributes: [
      { key: CommonplaceKind, value: start.kind },
      { key: CommonplaceStatus, value: 'running' },
      { key: CommonplaceSubject, value: note },
      { key: CommonplaceProfile, value: fresh.options.profile },
    ],
  });
  process.stderr.write(`started ${workflowId} (run ${runId}, directory ${runDirOf(checkout, runId)})\n`);
  if (start.options.detach) return;
  await followEdit(started);
}

/** Finds a run by its run ID (its directory's run.json) or its workflow ID. */
export async function resolveRun(client: Client, kb: string | undefined, run: string): Promise<{ checkout: string; runId: string; workflowId: string; runDir: string; handle: WorkflowHandle }> {
  const checkout = findCheckout(process.cwd(), kb).root;
  let runId = run;
  let workflowId: string | undefined;
  if (run.includes('/')) {
    workflowId = run;
    const described = await client.workflow.getHandle(run).describe().catch(() => undefined);
    runId = (described?.memo?.runId as string | undefined) ?? '';
    if (!runId) throw new UserError(`no editing run with workflow ID ${run}`);
  } else {
    workflowId = (await readRunRecord(checkout, run))?.workflowId;
    if (!workflowId) throw new UserError(`no run ${run} in ${checkout} (no ${path.join(runDirOf(checkout, run), 'run.json')})`);
  }
  return { checkout, runId, workflowId, runDir: runDirOf(checkout, runId), handle: client.workflow.getHandle(workflowId) };
}

/** `commonplace review run full-pass <note>`: the gates, the critique and an editor over one note. */
export function registerRunFullPass(run: Command): void {
  editOptions(
    run
      .command('full-pass')
      .description('review a note against its gates (bundled) and the critique, edit it, and publish the edit after approval of the exact manifest')
      .argument('<note>', 'the note, as a path'),
  )
    .option('--direction <text>', 'a steer for the editor, recorded with the run')
    .action(
      action(async (noteArg: string, options: EditCommandOptions & { direction?: string }) => {
        await startOrContinue({
          kind: 'full-pass',
          workflowType: 'fullPass',
          noteArg,
          options,
          asked: { profile: options.profile, ...(options.direction !== undefined && { direction: options.direction }) },
          newRun: (asked) => ({ options: { profile: (asked as { profile?: string }).profile ?? 'claude', direction: (asked as { direction?: string }).direction ?? null } }),
        });
      }),
    );
}
