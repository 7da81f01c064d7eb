import { WorkflowIdConflictPolicy, WorkflowUpdateFailedError, type Client, type WorkflowHandle } from '@temporalio/client';
import type { Command } from 'commander';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { runDirOf } from '../activities/review/sweep.js';
import type { Grouping, SweepInput, SweepOptions } from '../review/sweep-types.js';
import { gateSweep, progressQuery, resumeUpdate } from '../workflows/gate-sweep.js';
import { findCheckout } from '../kb/checkout.js';
import { openCheckout } from './checkout.js';
import { sha256 } from '../fs/digest.js';
import { ReviewError } from '../review/errors.js';
import { selectPairs } from '../review/status.js';
import { CommonplaceKind, CommonplaceProfile, CommonplaceStatus, CommonplaceSubject, TASK_QUEUE } from '../search-attributes.js';
import { connectClient } from './connection.js';
import { action, UserError } from './errors.js';
import { follow } from './follow.js';
import { checkLaunchInputs } from './input-checks.js';
import { formatStop, sweepFormat } from './sweep-format.js';
import { capNotApplied, parseMaxCost, resumeRequest } from './spend.js';

export interface SweepCommandOptions {
  notes: string[];
  gates: string[];
  grouping: string;
  profile: string;
  concurrency: string;
  batchSize: string;
  autoResume?: boolean;
  kb?: string;
  profiles?: string;
  scenario?: string;
  maxCost?: string;
}

const collect = (value: string, previous: string[]) => [...previous, value];

/** Adds the options every way of starting a sweep shares (the run command and schedules). */
export function sweepOptions(command: Command): Command {
  return command
    .option('--notes <glob>', 'notes to sweep, as a glob on KB paths (repeatable; default: every reviewable note)', collect, [])
    .option('--gates <glob>', 'gates to apply, as a glob on gate IDs such as "prose/*" (repeatable; default: all)', collect, [])
    .option('--grouping <grouping>', 'pair: one launch per pair; bundle: one launch per note and lens', 'pair')
    .option('--profile <name>', 'worker profile', 'claude')
    .option('--concurrency <n>', 'launches in flight at once', '4')
    .option('--batch-size <n>', 'launches per child workflow', '100')
    .option('--kb <dir>', 'KB checkout (default: the Git root above the current directory that holds kb/)')
    .option('--profiles <file>', 'worker profiles file (default: the KB\'s, else the shipped one)')
    .option('--scenario <file>', 'fake-harness scenario file (profile fake)')
    .option('--max-cost <usd>', 'stop (spend-limit) before a launch that would take the sweep past this many US dollars; on a stopped sweep, the new cap it resumes with');
}

function positive(name: string, text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new UserError(`--${name} must be a positive whole number, got "${text}"`);
  return value;
}

/** The workflow input a set of command options asks for; bad option values are usage errors (exit 2). */
export function sweepInput(options: SweepCommandOptions, extra: Partial<SweepInput> = {}): SweepInput {
  if (options.grouping !== 'pair' && options.grouping !== 'bundle') throw new UserError(`--grouping must be pair or bundle, got "${options.grouping}"`);
  const checkout = findCheckout(process.cwd(), options.kb).root;
  return {
    checkout,
    notes: options.notes,
    gates: options.gates,
    grouping: options.grouping as Grouping,
    profile: options.profile,
    concurrency: positive('concurrency', options.concurrency),
    batchSize: positive('batch-size', options.batchSize),
    autoResume: options.autoResume ?? false,
    ...(options.maxCost !== undefined && { maxCostUsd: parseMaxCost(options.maxCost) as number }),
    ...(options.profiles && { profilesFile: resolve(options.profiles) }),
    ...(options.scenario && { env: { COMMONPLACE_FAKE_SCENARIO: resolve(options.scenario) } }),
    ...extra,
  };
}

/**
 * Checks a sweep's input in the client, before anything starts: the profile resolves in its profiles
 * file, a `--scenario` file exists, and (unless it retries a sweep's problems) the note and gate
 * globs select pairs. Each is a one-line error; no workflow is started.
 */
export async function checkSweepInput(input: SweepInput): Promise<void> {
  checkLaunchInputs(input);
  if (input.retryOf !== undefined) return;
  try {
    const pairs = await selectPairs(input.checkout, { notes: input.notes, gates: input.gates });
    if (pairs.length === 0) throw new UserError(`${input.notes.join(' ') || 'every note'} × ${input.gates.join(' ') || 'every gate'}: selects no (note, gate) pair; nothing to sweep`);
  } catch (error) {
    if (error instanceof ReviewError) throw new UserError(error.message);
    throw error;
  }
}

/** The options that make two sweeps "the same command". */
export function sweepIdentity(input: SweepOptions & { checkout: string }): string {
  return JSON.stringify([input.checkout, [...input.notes].sort(), [...input.gates].sort(), input.grouping, input.profile, input.retryOf ?? null]);
}

/**
 * A sweep's run ID is its identity: the checkout's ID and a digest of the selection (notes, gates,
 * grouping, profile, what it retries). Its workflow ID is `gates/<run ID>`, and starting it is one
 * atomic decision of the server (conflict policy USE_EXISTING): two starts of the same command at
 * the same instant are one sweep, and the second attaches.
 */
export function sweepRunId(input: SweepOptions & { checkout: string }, checkout: string): string {
  return `GS-${checkout}-${sha256(sweepIdentity(input)).slice(0, 10)}`;
}

/** Starts a sweep (or attaches to the one with this ID) with its search attributes, summary and identity memo. */
export async function startSweep(client: Client, input: SweepInput & { runId: string }): Promise<WorkflowHandle<typeof gateSweep>> {
  return client.workflow.start(gateSweep, {
    taskQueue: TASK_QUEUE,
    workflowId: `gates/${input.runId}`,
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
    args: [input],
    memo: { identity: sweepIdentity(input), input },
    staticSummary: `gate sweep ${input.runId}: ${input.retryOf ? `retry of ${input.retryOf}` : `${input.notes.join(' ') || 'all notes'} × ${input.gates.join(' ') || 'all gates'}`} (${input.grouping}, ${input.profile})`,
    typedSearchAttributes: [
      { key: CommonplaceKind, value: 'gates' },
      { key: CommonplaceStatus, value: 'running' },
      { key: CommonplaceSubject, value: input.notes.join(' ') || 'all notes' },
      { key: CommonplaceProfile, value: input.profile },
    ],
  });
}

/** The open sweeps of one checkout (others' sweeps on the namespace never block it). */
async function openSweeps(client: Client, checkout: string): Promise<{ workflowId: string; identity: string | undefined }[]> {
  const found: { workflowId: string; identity: string | undefined }[] = [];
  const query = `${CommonplaceKind.name} = "gates" AND ExecutionStatus = "Running" AND WorkflowId STARTS_WITH "gates/GS-${checkout}-"`;
  for await (const execution of client.workflow.list({ query })) {
    found.push({ workflowId: execution.workflowId, identity: execution.memo?.identity as string | undefined });
  }
  return found;
}

/** Resumes a stopped sweep (the resume Update, with a new `--max-cost` cap when given), or does nothing to a running one; then follows it. */
export async function resumeAndFollow(client: Client, handle: WorkflowHandle<typeof gateSweep>, maxCostUsd?: number): Promise<void> {
  const progress = await handle.query(progressQuery).catch(() => undefined);
  if (progress?.status === 'stopped') {
    process.stderr.write(`resuming ${handle.workflowId} (stopped: ${progress.stops.map((stop) => stop.kind).join(', ')})\n`);
    await handle.executeUpdate(resumeUpdate, { args: [resumeRequest(maxCostUsd)] }).catch((error: unknown) => {
      if (!(error instanceof WorkflowUpdateFailedError)) throw error;
      throw new UserError(`${formatStop(progress)}\n  not resumed: ${error.cause?.message ?? error.message}`, 2);
    });
  } else {
    process.stderr.write(`attaching to ${handle.workflowId}${capNotApplied(maxCostUsd)}\n`);
  }
  await followSweep(client, handle);
}

/** Follows a sweep to its close or stop (exit 0 completed, 2 stopped or exhausted, 1 failed). */
export async function followSweep(client: Client, handle: WorkflowHandle<typeof gateSweep>): Promise<void> {
  await follow(handle, sweepFormat(client));
}

/** `commonplace review run gates`: the gate sweep, started, continued or attached to, and followed. */
export function registerRunGates(run: Command): void {
  sweepOptions(run.command('gates').description('ask the stale and missing (note, gate) pairs and write their result files'))
    .option('--resume <run>', 'continue the sweep with this run ID (a stopped one resumes; a finished one starts again on its stale pairs)')
    .option('--auto-resume', 'after a usage limit with a known reset time, wait for it and go on')
    .option('--detach', 'start the sweep and return without following it')
    .action(
      action(async (options: SweepCommandOptions & { resume?: string; detach?: boolean }) => {
        // Bad input is refused before the server is asked anything.
        const input = options.resume ? undefined : sweepInput(options);
        const maxCostUsd = parseMaxCost(options.maxCost);
        if (input) await checkSweepInput(input);
        const client = await connectClient();
        if (options.resume !== undefined || !input) {
          const resume = options.resume ?? '';
          const handle = client.workflow.getHandle<typeof gateSweep>(`gates/${options.resume}`);
          const described = await handle.describe().catch(() => {
            throw new UserError(`no sweep ${options.resume} (workflow gates/${options.resume} not found)`);
          });
          if (described.status.name === 'RUNNING') return resumeAndFollow(client, handle, maxCostUsd);
          const recorded = described.memo?.input as SweepInput | undefined;
          if (!recorded) throw new UserError(`sweep ${options.resume} has no recorded input to start again from`);
          process.stderr.write(`sweep ${options.resume} is ${described.status.name.toLowerCase()}; starting it again on its remaining stale pairs\n`);
          const again = await startSweep(client, { ...recorded, runId: resume, ...(maxCostUsd !== undefined && { maxCostUsd }) });
          return followSweep(client, again);
        }
        const checkout = await openCheckout(input.checkout);
        const runId = sweepRunId(input, checkout);
        const others = (await openSweeps(client, checkout)).filter((sweep) => sweep.workflowId !== `gates/${runId}`);
        if (others.length > 0) {
          const other = others[0]!.workflowId.replace(/^gates\//, '');
          throw new UserError(`another sweep of this checkout is open (${others.map((sweep) => sweep.workflowId).join(', ')}) with different options; finish it with \`commonplace review run gates --resume ${other}\` or end it with \`commonplace review cancel ${other}\``);
        }
        const open = await client.workflow
          .getHandle(`gates/${runId}`)
          .describe()
          .then((described) => described.status.name === 'RUNNING', () => false);
        const handle = await startSweep(client, { ...input, runId });
        if (open) return resumeAndFollow(client, handle, maxCostUsd);
        process.stderr.write(`started gates/${runId}; watch it at the Web UI or with: temporal workflow describe --workflow-id gates/${runId}\n`);
        if (options.detach) return;
        await followSweep(client, handle);
      }),
    );
}

/** How many problem pairs a closed sweep recorded in its summary; undefined when it wrote none (it never finished). */
async function recordedProblems(checkout: string, runId: string): Promise<number | undefined> {
  try {
    const summary = JSON.parse(await readFile(join(runDirOf(checkout, runId), 'summary.json'), 'utf8')) as { problems?: unknown };
    return typeof summary.problems === 'number' ? summary.problems : undefined;
  } catch {
    return undefined;
  }
}

/** `commonplace review retry RUN`: re-asks the problem pairs of a finished sweep, in a new sweep. */
export function registerRetry(review: Command): void {
  review
    .command('retry')
    .description('re-ask the problem pairs of a finished sweep')
    .argument('<run>', 'the finished sweep\'s run ID')
    .option('--profile <name>', 'worker profile (default: the one the sweep used)')
    .action(
      action(async (run: string, options: { profile?: string }) => {
        const client = await connectClient();
        const described = await client.workflow.getHandle(`gates/${run}`).describe().catch(() => {
          throw new UserError(`no sweep ${run} (workflow gates/${run} not found)`);
        });
        if (described.status.name === 'RUNNING') throw new UserError(`sweep ${run} is still open; resume it with \`commonplace review run gates --resume ${run}\``, 2);
        const recorded = described.memo?.input as SweepInput | undefined;
        if (!recorded) throw new UserError(`sweep ${run} has no recorded input`);
        if ((await recordedProblems(recorded.checkout, run)) === 0) {
          process.stdout.write(`sweep ${run} has no problem pairs: nothing to retry\n`);
          return;
        }
        const retry = { ...recorded, retryOf: run, ...(options.profile && { profile: options.profile }) };
        const runId = sweepRunId(retry, await openCheckout(recorded.checkout));
        const handle = await startSweep(client, { ...retry, runId });
        process.stderr.write(`started gates/${runId}, re-asking the problem pairs of ${run}\n`);
        await followSweep(client, handle);
      }),
    );
}
