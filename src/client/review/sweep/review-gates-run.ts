/** The actions of `review run gates` and `review retry`: their options read once, then a sweep started, resumed or attached to, and followed. */
import { memoFromWords } from '../../../place-words.js';
import type { Client, WorkflowHandle } from '@temporalio/client';
import type { SweepInput } from '../../../review/sweep-types.js';
import type { gateSweep } from '../../../workflows/gate-sweep.js';
import { CommonplaceKind } from '../../../search-attributes.js';
import { checkoutIdOf, knownCheckoutId, openCheckout } from '../../../checkout/index.js';
import { checkoutRootOf, knowCheckoutHere, nameCheckout } from '../../shared/checkout.js';
import { connectClient } from '../../shared/connection.js';
import { requireSearchAttributes } from '../../shared/preflight.js';
import { UserError } from '../../shared/errors.js';
import { printJson } from '../../shared/json-output.js';
import { rendered as shown } from '../../shared/render-paths.js';
import { parseGatesCommand, type Following, type RunGatesOptions } from './sweep-request.js';
import { checkSweepInput, followSweep, resumeAndFollow, startSweep, sweepRunId } from '../shared/sweep-start.js';
import { describeCommand, runnable } from '../../shared/command-line.js';
import { describeOrRefuse } from '../../shared/run-errors.js';
import { checkoutSweepsPrefix, sweepRunIdOf, sweepWorkflowId } from '../../../runs/workflow-ids.js';
import { runCommand } from '../../../runs/run-commands.js';
import { sweepEstimate } from '../shared/estimate-inputs.js';
import { estimateLineOf, printEstimate } from '../../shared/estimate-output.js';

export interface RetryOptions {
  profile?: string;
  kb?: string;
  json?: boolean;
}

/** The open sweeps of one checkout (others' sweeps on the namespace never block it). */
async function openSweeps(client: Client, checkout: string): Promise<{ workflowId: string; identity: string | undefined }[]> {
  const found: { workflowId: string; identity: string | undefined }[] = [];
  const query = `${CommonplaceKind.name} = "gates" AND ExecutionStatus = "Running" AND WorkflowId STARTS_WITH "${checkoutSweepsPrefix(checkout)}"`;
  for await (const execution of client.workflow.list({ query })) {
    found.push({ workflowId: execution.workflowId, identity: memoFromWords(execution.memo?.identity as string | undefined) });
  }
  return found;
}

/** `review run gates`: bad input is refused before the server is asked anything; then start, resume or attach, and follow. */
export async function runGates(options: RunGatesOptions): Promise<void> {
  const request = parseGatesCommand(options);
  return request.resume === undefined
    ? startGates(request.input, request.estimate, request)
    : resumeGates(request.resume, request.maxCostUsd, request.kb, request);
}

async function startGates(input: SweepInput, estimate: boolean, following: Following): Promise<void> {
  const checked = await checkSweepInput(input);
  if (estimate) return printEstimate(await sweepEstimate(input, checked), following.json);
  const client = await connectClient();
  await requireSearchAttributes(client);
  const checkout = await knownCheckoutId(input.checkout);
  const runId = sweepRunId(input, checkout, client.options.namespace);
  const others = (await openSweeps(client, checkout)).filter((sweep) => sweep.workflowId !== sweepWorkflowId(runId));
  if (others.length > 0) {
    const other = sweepRunIdOf(others[0]!.workflowId)!;
    throw new UserError(
      `another sweep of this checkout is open (${others.map((sweep) => sweep.workflowId).join(', ')}) with different options; finish it with \`${runnable(runCommand.sweepResume(other), input.checkout)}\` or end it with \`${runnable(runCommand.cancel(other), input.checkout)}\``,
    );
  }
  const open = await client.workflow
    .getHandle(sweepWorkflowId(runId))
    .describe()
    .then(
      (described) => described.status.name === 'RUNNING',
      () => false,
    );
  // The estimate is the started sweep's first line, before the checkout's first-use notice.
  if (!open) process.stderr.write(`${await estimateLineOf(() => sweepEstimate(input, checked))}\n`);
  await openCheckout(input.checkout);
  const handle = await startSweep(client, { ...input, runId });
  if (open) return resumeAndFollow(client, handle, input.maxCostUsd, following.json);
  process.stderr.write(`started ${handle.workflowId}; watch it at the Web UI or with: ${await describeCommand(handle.workflowId)}\n`);
  return followOrDetach(client, handle, runId, following);
}

/** `review run gates --resume RUN`: a running sweep resumes or is attached to; a closed one starts again on its stale pairs. */
async function resumeGates(resume: string, maxCostUsd: number | undefined, kb: string | undefined, following: Following): Promise<void> {
  await knowCheckoutHere(kb);
  const client = await connectClient();
  await requireSearchAttributes(client);
  const handle = client.workflow.getHandle<typeof gateSweep>(sweepWorkflowId(resume));
  const described = await describeOrRefuse(handle, `sweep ${resume}`);
  if (described.status.name === 'RUNNING') return resumeAndFollow(client, handle, maxCostUsd, following.json);
  const recorded = memoFromWords(described.memo?.input as SweepInput | undefined);
  if (!recorded) throw new UserError(`sweep ${resume} has no recorded input to start again from`);
  process.stderr.write(`sweep ${resume} is ${described.status.name.toLowerCase()}; starting it again on its remaining stale pairs\n`);
  const again = await startSweep(client, { ...recorded, runId: resume, ...(maxCostUsd !== undefined && { maxCostUsd }) });
  return followOrDetach(client, again, resume, following);
}

/** Follows the sweep to its end, or with `--detach` returns at once (with `--json`, saying how to resume it). */
async function followOrDetach(client: Client, handle: WorkflowHandle<typeof gateSweep>, runId: string, { detach, json }: Following): Promise<void> {
  if (!detach) return followSweep(client, handle, { json });
  if (json) printJson('sweep-started', 1, { runId, workflowId: handle.workflowId, next: runCommand.sweepResume(runId) });
}

/**
 * `review retry RUN`: re-asks the problem pairs of a finished sweep, in a new sweep. A sweep still
 * open is a stop with one next command (its resume): exit 2.
 */
export async function runRetry(run: string, options: RetryOptions): Promise<void> {
  const named = options.kb === undefined ? undefined : checkoutRootOf(options.kb);
  await knowCheckoutHere(options.kb);
  const client = await connectClient();
  await requireSearchAttributes(client);
  const handle = client.workflow.getHandle<typeof gateSweep>(sweepWorkflowId(run));
  const described = await describeOrRefuse(handle, `sweep ${run}`);
  if (described.status.name === 'RUNNING') throw new UserError(`sweep ${run} is still open; resume it with \`${runnable(runCommand.sweepResume(run))}\``, 2);
  const recorded = memoFromWords(described.memo?.input as SweepInput | undefined);
  if (!recorded) throw new UserError(`sweep ${run} has no recorded input`);
  // The sweep names its checkout by ID: the retry needs no path of this host.
  const checkout = checkoutIdOf(recorded.checkout);
  if (checkout === undefined) throw new UserError(`sweep ${run} names its checkout by a path: it began before 0.2.0, whose sweeps this release does not retry`);
  if (named !== undefined) {
    const here = await nameCheckout(named);
    if (here.id !== checkout)
      throw new UserError(`sweep ${run} ran on checkout ${checkout} (${shown(recorded.checkout)}), not on --kb ${options.kb} (checkout ${here.id})`);
  }
  // A closed sweep's summary counts its problem pairs; one that never finished has none to read, and is retried.
  const problems = await handle.result().then(
    (summary) => summary.counts.problems,
    () => undefined,
  );
  if (problems === 0) {
    if (options.json) printJson('review-retry', 1, { runId: run, problems: 0, started: false, message: `sweep ${run} has no problem pairs: nothing to retry` });
    else process.stdout.write(`sweep ${run} has no problem pairs: nothing to retry\n`);
    return;
  }
  const retry = { ...recorded, retryOf: run, ...(options.profile && { profile: options.profile }) };
  const runId = sweepRunId(retry, checkout, client.options.namespace);
  const handleOfRetry = await startSweep(client, { ...retry, runId });
  process.stderr.write(`started ${handleOfRetry.workflowId}, re-asking the problem pairs of ${run}\n`);
  await followSweep(client, handleOfRetry, { json: options.json ?? false });
}
