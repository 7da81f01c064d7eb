/** The actions of `review run gates` and `review retry`: build a sweep's input, start or resume it, follow it. */
import { WorkflowIdConflictPolicy, WorkflowUpdateFailedError, type Client, type WorkflowHandle } from '@temporalio/client';
import { resolve } from 'node:path';
import type { Grouping, SweepInput, SweepOptions } from '../../review/sweep-types.js';
import { gateSweep, progressQuery, resumeUpdate } from '../../workflows/gate-sweep.js';
import { findCheckout } from '../../kb/checkout.js';
import { KbError } from '../../kb/errors.js';
import { openCheckout } from '../shared/checkout.js';
import { sha256 } from '../../fs/digest.js';
import { ReviewError } from '../../review/errors.js';
import { selectPairs } from '../../review/status.js';
import { commandSelections } from '../../review/criteria.js';
import { CommonplaceKind, CommonplaceProfile, CommonplaceStatus, CommonplaceSubject, TASK_QUEUE } from '../../search-attributes.js';
import { connectClient } from '../shared/connection.js';
import { UserError } from '../shared/errors.js';
import { checkoutPlaces, portable, shown, warnUnheld } from '../shared/places.js';
import { checkoutIdOf, checkoutRoot as checkoutPlace, isPlace } from '../../places.js';
import { follow, type RunOutcome } from '../shared/follow.js';
import { checkLaunchInputs } from '../shared/input-checks.js';
import { printJson } from '../shared/json-output.js';
import type { RetryOptions, RunGatesOptions, SweepCommandOptions } from './review-gates.js';
import { runDetails } from '../../runs/run-details.js';
import { nextStep } from '../shared/stop-format.js';
import { formatStop, sweepFormat, sweepNext } from './sweep-format.js';
import { capNotApplied, parseMaxCost, resumeRequest } from '../shared/spend.js';

function positive(name: string, text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new UserError(`--${name} must be a positive whole number, got "${text}"`);
  return value;
}

/** The checkout root `--kb` (or the current directory) names; not a checkout is bad input (exit 1). */
export function checkoutRoot(kb: string | undefined): string {
  try {
    return findCheckout(process.cwd(), kb).root;
  } catch (error) {
    if (error instanceof KbError) throw new UserError(error.message);
    throw error;
  }
}

/** The workflow input a set of command options asks for; bad option values are usage errors (exit 1). */
export function sweepInput(options: SweepCommandOptions, extra: Partial<SweepInput> = {}): SweepInput {
  if (options.grouping !== 'pair' && options.grouping !== 'bundle') throw new UserError(`--grouping must be pair or bundle, got "${options.grouping}"`);
  const concurrency = positive('concurrency', options.concurrency);
  const batchSize = positive('batch-size', options.batchSize);
  const maxCostUsd = parseMaxCost(options.maxCost);
  const criteria = commandSelections(options.criteria, options.gates.length > 0);
  if (!criteria.ok) throw new UserError(criteria.message);
  const checkout = checkoutRoot(options.kb);
  return {
    checkout,
    notes: options.notes,
    gates: options.gates,
    criteria: criteria.kinds,
    grouping: options.grouping as Grouping,
    profile: options.profile,
    concurrency,
    batchSize,
    autoResume: options.autoResume ?? false,
    ...(maxCostUsd !== undefined && { maxCostUsd }),
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
    const pairs = await selectPairs(input.checkout, { notes: input.notes, gates: input.gates, criteria: input.criteria ?? ['gates'] });
    if (pairs.length === 0) throw new UserError(`${input.notes.join(' ') || 'every note'} × ${input.gates.join(' ') || 'every gate'}${criteriaNote(input)}: selects no (note, criterion) pair; nothing to sweep`);
  } catch (error) {
    if (error instanceof ReviewError) throw new UserError(error.message);
    throw error;
  }
}

/** The options that make two sweeps "the same command". */
export function sweepIdentity(input: SweepOptions & { checkout: string }): string {
  const identity: unknown[] = [input.checkout, [...input.notes].sort(), [...input.gates].sort(), input.grouping, input.profile, input.retryOf ?? null];
  // Gates only is what every sweep asked before kinds were chosen: those keep the identity (and run ID) they had.
  const kinds = input.criteria ?? ['gates'];
  if (kinds.length !== 1 || kinds[0] !== 'gates') identity.push([...kinds].sort());
  return JSON.stringify(identity);
}

/** ` (types, collections)` when a sweep asks other kinds than gates alone, for its one-line messages. */
function criteriaNote(input: SweepOptions): string {
  const kinds = input.criteria ?? ['gates'];
  return kinds.length === 1 && kinds[0] === 'gates' ? '' : ` (${kinds.join(', ')})`;
}

/**
 * A sweep's run ID is its identity: the checkout's ID and a digest of the selection (notes, gates,
 * grouping, profile, what it retries). Its workflow ID is `gates/<run ID>`, and starting it is one
 * atomic decision of the server (conflict policy USE_EXISTING): two starts of the same command at
 * the same instant are one sweep, and the second attaches.
 */
export function sweepRunId(input: SweepOptions & { checkout: string }, checkout: string): string {
  // The identity names the checkout by its ID, so the same command from any host is the same sweep.
  return `GS-${checkout}-${sha256(sweepIdentity({ ...input, checkout: checkoutPlace(checkout) })).slice(0, 10)}`;
}

/** What a sweep sweeps, in a few words (its summary in the Web UI). */
export function sweepSubject(input: SweepInput): string {
  return input.retryOf ? `retry of ${input.retryOf}` : `${input.notes.join(' ') || 'all notes'} × ${input.gates.join(' ') || 'all gates'}${criteriaNote(input)}`;
}

/** A sweep's parameters for the Web UI's static details (a schedule's sweeps carry them in its action). */
export function sweepDetails(title: string, input: SweepInput, extra: ReadonlyArray<readonly [string, string]> = []): string {
  return runDetails(title, [
    ['checkout', input.checkout],
    ['notes', input.notes.join(' ') || 'every reviewable note'],
    ['gates', input.gates.join(' ') || 'every gate'],
    ['criteria', (input.criteria ?? ['gates']).join(', ')],
    ['retry of', input.retryOf],
    ['grouping', input.grouping],
    ['profile', input.profile],
    ['profiles file', input.profilesFile],
    ['concurrency', input.concurrency],
    ['batch size', input.batchSize],
    ['max cost', input.maxCostUsd === undefined ? 'none' : `$${input.maxCostUsd}`],
    ['auto-resume', input.autoResume ? 'yes' : 'no'],
    ...extra,
  ]);
}

/** Starts a sweep (or attaches to the one with this ID) with its search attributes, summary, details and identity memo. */
export async function startSweep(client: Client, given: SweepInput & { runId: string }): Promise<WorkflowHandle<typeof gateSweep>> {
  // The input names its checkout by ID and paths relative to it; a recorded input (a resume) already does.
  const input = isPlace(given.checkout) ? given : await portable(given, given.checkout);
  if (!isPlace(given.checkout)) await warnUnheld(client, given.checkout);
  return client.workflow.start(gateSweep, {
    taskQueue: TASK_QUEUE,
    workflowId: `gates/${input.runId}`,
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
    args: [input],
    memo: { identity: sweepIdentity(input), input },
    staticSummary: `gate sweep ${input.runId}: ${sweepSubject(input)} (${input.grouping}, ${input.profile})`,
    staticDetails: sweepDetails(`gate sweep ${input.runId}`, input),
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

/**
 * Resumes a stopped sweep (the resume Update, with a new `--max-cost` cap when given), or does
 * nothing to a running one; then follows it. A refused resume (a spend-limit stop without a higher
 * cap) is a stop still: exit 2 with its one next command.
 */
export async function resumeAndFollow(client: Client, handle: WorkflowHandle<typeof gateSweep>, maxCostUsd?: number, options: { json?: boolean } = {}): Promise<void> {
  const progress = await handle.query(progressQuery).catch(() => undefined);
  if (progress?.status === 'stopped') {
    process.stderr.write(`resuming ${handle.workflowId} (stopped: ${progress.stops.map((stop) => stop.kind).join(', ')})\n`);
    const refused = await handle.executeUpdate(resumeUpdate, { args: [resumeRequest(maxCostUsd)] }).then(
      () => undefined,
      (error: unknown) => {
        if (!(error instanceof WorkflowUpdateFailedError)) throw error;
        return error.cause?.message ?? error.message;
      },
    );
    if (refused !== undefined) {
      if (!options.json) throw new UserError(`${formatStop(progress)}\n  not resumed: ${refused}`, 2);
      const next = nextStep(progress.stops, progress.status, sweepNext(progress.runId))?.command;
      printJson('run-outcome', 1, { workflowId: handle.workflowId, runId: progress.runId, status: 'stopped', exitCode: 2, ...(next !== undefined && { next }), stops: progress.stops, message: `not resumed: ${refused}`, progress } satisfies RunOutcome);
      process.stderr.write(`commonplace: ${handle.workflowId} not resumed: ${refused}\n`);
      process.exitCode = 2;
      return;
    }
  } else {
    process.stderr.write(`attaching to ${handle.workflowId}${capNotApplied(maxCostUsd)}\n`);
  }
  await followSweep(client, handle, options);
}

/** Follows a sweep to its close or stop (exit 0 completed, 2 stopped or exhausted, 1 failed). */
export async function followSweep(client: Client, handle: WorkflowHandle<typeof gateSweep>, options: { json?: boolean } = {}): Promise<void> {
  await follow(handle, sweepFormat(client, options));
}

/** `review run gates`: bad input is refused before the server is asked anything; then start, resume or attach, and follow. */
export async function runGates(options: RunGatesOptions): Promise<void> {
  const maxCostUsd = parseMaxCost(options.maxCost);
  if (options.resume !== undefined) return resumeGates(options.resume, maxCostUsd, options);
  const input = sweepInput(options);
  await checkSweepInput(input);
  const client = await connectClient();
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
  if (open) return resumeAndFollow(client, handle, maxCostUsd, options);
  process.stderr.write(`started gates/${runId}; watch it at the Web UI or with: temporal workflow describe --workflow-id gates/${runId}\n`);
  if (options.detach) {
    if (options.json) printJson('sweep-started', 1, { runId, workflowId: `gates/${runId}`, next: `commonplace review run gates --resume ${runId}` });
    return;
  }
  await followSweep(client, handle, options);
}

/** `review run gates --resume RUN`: a running sweep resumes or is attached to; a closed one starts again on its stale pairs. */
async function resumeGates(resume: string, maxCostUsd: number | undefined, options: RunGatesOptions): Promise<void> {
  const client = await connectClient();
  const handle = client.workflow.getHandle<typeof gateSweep>(`gates/${resume}`);
  const described = await handle.describe().catch(() => {
    throw new UserError(`no sweep ${resume} (workflow gates/${resume} not found)`);
  });
  if (described.status.name === 'RUNNING') return resumeAndFollow(client, handle, maxCostUsd, options);
  const recorded = described.memo?.input as SweepInput | undefined;
  if (!recorded) throw new UserError(`sweep ${resume} has no recorded input to start again from`);
  process.stderr.write(`sweep ${resume} is ${described.status.name.toLowerCase()}; starting it again on its remaining stale pairs\n`);
  const again = await startSweep(client, { ...recorded, runId: resume, ...(maxCostUsd !== undefined && { maxCostUsd }) });
  if (options.detach) {
    if (options.json) printJson('sweep-started', 1, { runId: resume, workflowId: `gates/${resume}`, next: `commonplace review run gates --resume ${resume}` });
    return;
  }
  return followSweep(client, again, options);
}

/**
 * `review retry RUN`: re-asks the problem pairs of a finished sweep, in a new sweep. A sweep still
 * open is a stop with one next command (its resume): exit 2.
 */
export async function runRetry(run: string, options: RetryOptions): Promise<void> {
  const named = options.kb === undefined ? undefined : checkoutRoot(options.kb);
  const client = await connectClient();
  const handle = client.workflow.getHandle<typeof gateSweep>(`gates/${run}`);
  const described = await handle.describe().catch(() => {
    throw new UserError(`no sweep ${run} (workflow gates/${run} not found)`);
  });
  if (described.status.name === 'RUNNING') throw new UserError(`sweep ${run} is still open; resume it with \`commonplace review run gates --resume ${run}\``, 2);
  const recorded = described.memo?.input as SweepInput | undefined;
  if (!recorded) throw new UserError(`sweep ${run} has no recorded input`);
  // The sweep names its checkout by ID (a sweep begun before places, by its path): the retry needs no path of this host.
  const checkout = checkoutIdOf(recorded.checkout) ?? (await openCheckout(recorded.checkout));
  if (named !== undefined) {
    const [here] = (await checkoutPlaces(named)).checkouts();
    if (here!.id !== checkout) throw new UserError(`sweep ${run} ran on checkout ${checkout} (${shown(recorded.checkout)}), not on --kb ${options.kb} (checkout ${here!.id})`);
  }
  // A closed sweep's summary counts its problem pairs; one that never finished has none to read, and is retried.
  const problems = await handle.result().then((summary) => summary.counts.problems, () => undefined);
  if (problems === 0) {
    if (options.json) printJson('review-retry', 1, { runId: run, problems: 0, started: false, message: `sweep ${run} has no problem pairs: nothing to retry` });
    else process.stdout.write(`sweep ${run} has no problem pairs: nothing to retry\n`);
    return;
  }
  const retry = { ...recorded, retryOf: run, ...(options.profile && { profile: options.profile }) };
  const runId = sweepRunId(retry, checkout);
  const handleOfRetry = await startSweep(client, { ...retry, runId });
  process.stderr.write(`started gates/${runId}, re-asking the problem pairs of ${run}\n`);
  await followSweep(client, handleOfRetry, options);
}
