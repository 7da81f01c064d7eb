/**
 * Starting and following a gate sweep, shared by the commands that start one (`review run gates`,
 * `review retry`, `review schedule create`) or follow one (`review approve`): the client-side check
 * of its input, its identity and run ID, its start with search attributes and details, its resume.
 */
import { memoInWords } from '../../../place-words.js';
import { WorkflowIdConflictPolicy, type Client, type WorkflowHandle } from '@temporalio/client';
import { sha256 } from '../../../fs/digest.js';
import { checkoutRoot as checkoutPlace, isPlace } from '../../../checkout/index.js';
import { ReviewError } from '../../../review/errors.js';
import type { Profile } from '../../../harness/profiles.js';
import { sweepPairs } from '../../../review/run-pairs.js';
import type { PairStatus } from '../../../review/status.js';
import type { SweepInput, SweepOptions } from '../../../review/sweep-types.js';
import { markdownText, runDetails } from '../../../runs/run-details.js';
import { namespacedIdentity, sweepRunId as runIdOfSweep, sweepWorkflowId } from '../../../runs/workflow-ids.js';
import { startingAttributes, TASK_QUEUE } from '../../../search-attributes.js';
import { gateSweep, progressQuery, resumeUpdate } from '../../../workflows/gate-sweep.js';
import { UserError } from '../../shared/errors.js';
import { follow, reportStop } from '../../shared/follow.js';
import { checkSweepLaunches } from '../../shared/input-checks.js';
import { portable, warnUnheld } from '../../shared/checkout.js';
import { capNotApplied, sendResume } from '../../shared/spend.js';
import { formatStop, sweepFormat, sweepNextCommand } from './sweep-format.js';

/** What the client's check read of a sweep: its profile, and the pairs it would ask (none read for a retry). */
export interface CheckedSweep {
  profile: Profile;
  asked: PairStatus[];
}

/**
 * Checks a sweep's input in the client, before anything starts: the profile resolves in its profiles
 * file and its CLI is installed, `--batch` names a model-API profile, a `--scenario` file exists, and
 * (unless it retries a sweep's problems) the note and gate globs select pairs. Each is a one-line
 * error; no workflow is started and nothing is written.
 */
export async function checkSweepInput(input: SweepInput): Promise<CheckedSweep> {
  const profile = checkSweepLaunches(input);
  if (input.retryOf !== undefined) return { profile, asked: [] };
  const { selected, asked } = await sweepPairs(input).catch((error: unknown) => {
    throw error instanceof ReviewError ? new UserError(error.message) : error;
  });
  if (selected === 0)
    throw new UserError(
      `${input.notes.join(' ') || 'every note'} × ${input.gates.join(' ') || 'every gate'}${criteriaNote(input.criteria)}: selects no (note, criterion) pair; nothing to sweep`,
    );
  return { profile, asked };
}

/** Gates alone is what every sweep asked before kinds were chosen: such a sweep keeps the identity (and run ID) and the words it had. */
const gatesOnly = (kinds: SweepOptions['criteria']) => kinds.length === 1 && kinds[0] === 'gates';

/** The options that make two sweeps "the same command" (on one namespace: another namespace's same command is another sweep). */
export function sweepIdentity(input: SweepOptions & { checkout: string }, namespace = 'default'): string {
  const identity: unknown[] = [input.checkout, [...input.notes].sort(), [...input.gates].sort(), input.grouping, input.profile, input.retryOf ?? null];
  if (!gatesOnly(input.criteria)) identity.push([...input.criteria].sort());
  // A namespace other than `default` is part of the identity, so two namespaces' sweeps never share a run directory.
  identity.push(...namespacedIdentity(namespace));
  return JSON.stringify(identity);
}

/** ` (types, collections)` when a sweep asks other kinds than gates alone, for its one-line messages. */
const criteriaNote = (kinds: SweepOptions['criteria']) => (gatesOnly(kinds) ? '' : ` (${kinds.join(', ')})`);

/**
 * A sweep's run ID is its identity: the checkout's ID and a digest of the selection (notes, gates,
 * grouping, profile, what it retries). Its workflow ID is the sweep's (`sweepWorkflowId`), and starting it is one
 * atomic decision of the server (conflict policy USE_EXISTING): two starts of the same command at
 * the same instant are one sweep, and the second attaches.
 */
export function sweepRunId(input: SweepOptions & { checkout: string }, checkout: string, namespace: string): string {
  // The identity names the checkout by its ID, so the same command from any host is the same sweep (on one namespace).
  return runIdOfSweep(checkout, sha256(sweepIdentity({ ...input, checkout: checkoutPlace(checkout) }, namespace)));
}

/** What a sweep sweeps, in a few words (its summary in the Web UI). */
export function sweepSubject(input: SweepInput): string {
  return input.retryOf
    ? `retry of ${input.retryOf}`
    : `${input.notes.join(' ') || 'all notes'} × ${input.gates.join(' ') || 'all gates'}${criteriaNote(input.criteria)}`;
}

/** A sweep's parameters for the Web UI's static details (a schedule's sweeps carry them in its action). */
export function sweepDetails(title: string, input: SweepInput, extra: ReadonlyArray<readonly [string, string]> = []): string {
  return runDetails(title, [
    ['checkout', input.checkout],
    ['notes', input.notes.join(' ') || 'every reviewable note'],
    ['gates', input.gates.join(' ') || 'every gate'],
    ['criteria', input.criteria.join(', ')],
    ['retry of', input.retryOf],
    ['grouping', input.grouping],
    ['profile', input.profile],
    ['profiles file', input.profilesFile],
    ['concurrency', input.concurrency ?? "the profile's default (32 on a model API, 4 on a CLI)"],
    ['batch size', input.batchSize ?? "the profile's default (500 on a model API, 100 on a CLI)"],
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
    workflowId: sweepWorkflowId(input.runId),
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
    args: [input],
    memo: memoInWords({ identity: sweepIdentity(input, client.options.namespace), input }),
    staticSummary: markdownText(`gate sweep ${input.runId}: ${sweepSubject(input)} (${input.grouping}, ${input.profile})`),
    staticDetails: sweepDetails(`gate sweep ${input.runId}`, input),
    typedSearchAttributes: startingAttributes('gates', input.notes.join(' ') || 'all notes', input.profile),
  });
}

/**
 * Resumes a stopped sweep (the resume Update, with a new `--max-cost` cap when given), or does
 * nothing to a running one; then follows it. A refused resume (a spend-limit stop without a higher
 * cap) is a stop still: exit 2 with its one next command.
 */
export async function resumeAndFollow(client: Client, handle: WorkflowHandle<typeof gateSweep>, maxCostUsd: number | undefined, json: boolean): Promise<void> {
  const progress = await handle.query(progressQuery).catch(() => undefined);
  if (progress?.status !== 'stopped') {
    process.stderr.write(`attaching to ${handle.workflowId}${capNotApplied(maxCostUsd)}\n`);
    return followSweep(client, handle, { json });
  }
  process.stderr.write(`resuming ${handle.workflowId} (stopped: ${progress.stops.map((stop) => stop.kind).join(', ')})\n`);
  const refused = await sendResume(handle, resumeUpdate, maxCostUsd);
  if (refused === undefined) return followSweep(client, handle, { json });
  if (!json) throw new UserError(`${formatStop(progress)}\n  not resumed: ${refused}`, 2);
  reportStop(handle, { json, next: sweepNextCommand, stopped: formatStop }, progress, `not resumed: ${refused}`);
  process.stderr.write(`commonplace: ${handle.workflowId} not resumed: ${refused}\n`);
}

/** Follows a sweep to its close or stop (exit 0 completed, 2 stopped or exhausted, 1 failed). */
export async function followSweep(client: Client, handle: WorkflowHandle<typeof gateSweep>, options: { json?: boolean } = {}): Promise<void> {
  await follow(handle, sweepFormat(client, options));
}
