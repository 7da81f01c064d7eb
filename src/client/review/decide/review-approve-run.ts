/** The actions of `review approve` and `review acknowledge`: the operator's answers to an editing run (or a sweep) that waits on one. */
import { acknowledgeUpdate as sweepAcknowledgeUpdate, gateSweep, progressQuery as sweepProgressQuery } from '../../../workflows/gate-sweep.js';
import { followSweep } from '../shared/sweep-start.js';
import { compareAcknowledgeUpdate, compareProgressQuery, type compareRun } from '../../../workflows/compare.js';
import { follow } from '../../shared/follow.js';
import { compareFormat } from '../shared/compare-format.js';
import { sha256 } from '../../../fs/digest.js';
import { formatFindingsInline } from '../../../kb/format.js';
import { WorkflowNotFoundError, type Client, type QueryDefinition, type WorkflowHandle } from '@temporalio/client';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { locateSelections, parseSelectionList } from '../../../review/edit/selection.js';
import type { AcknowledgeAnswer, ApprovalAnswer, EditKind, EditProgress } from '../../../review/edit/types.js';
import type { Stop } from '../../../runs/stop.js';
import { connectClient } from '../../shared/connection.js';
import { requireSearchAttributes, requireWorkflowWorker } from '../../shared/preflight.js';
import { rootMessage, UserError } from '../../shared/errors.js';
import { EDIT_WORKFLOWS, followEdit, type EditWorkflow } from '../shared/edit-follow.js';
import { recordedRun, resolveRun } from '../shared/edit-lookup.js';
import { compareWorkflowId, namedCompareRun, namedSweep, sweepWorkflowId } from '../../../runs/workflow-ids.js';

export interface AcknowledgeOptions {
  kb?: string;
  detach?: boolean;
  json?: boolean;
}
export type ApproveOptions = AcknowledgeOptions & { key: string };

/** Past this size a file is not a proposal answer. */
const MAX_ANSWER_BYTES = 1024 * 1024;

/** The approval for a file: as it stands, bound to the key, with the proposal's inputs hashed now so a changed one is refused. */
export async function approvalAnswer(runDir: string, progress: EditProgress | undefined, file: string, key: string): Promise<ApprovalAnswer> {
  const bytes = await readFile(path.join(runDir, ...file.split('/')));
  if (bytes.length > MAX_ANSWER_BYTES) throw new UserError(`${file} is ${bytes.length} bytes; a proposal answer is at most ${MAX_ANSWER_BYTES}`);
  const inputs: ApprovalAnswer['inputs'] = [];
  const stop = progress?.stops[0];
  for (const input of stop?.kind === 'awaiting-approval' ? stop.proposal.inputs : []) {
    const now = await readFile(path.join(runDir, ...input.path.split('/'))).catch(() => undefined);
    inputs.push({ path: input.path, sha256: now === undefined ? 'absent' : sha256(now) });
  }
  return { file, key, text: bytes.toString('utf8'), inputs };
}

/** A file the operator names: relative to the current directory, or to the run directory. */
async function runRelative(runDir: string, written: string): Promise<string> {
  const candidates = [path.resolve(process.cwd(), written), path.resolve(runDir, written)];
  for (const candidate of candidates) {
    const relative = path.relative(runDir, candidate);
    if (relative.startsWith('..') || path.isAbsolute(relative)) continue;
    if ((await stat(candidate).catch(() => undefined))?.isFile()) return relative.split(path.sep).join('/');
  }
  throw new UserError(`${written}: no such file in the run directory ${runDir}`);
}

async function progressOf(found: { handle: WorkflowHandle<EditWorkflow>; kind: EditKind }, run: string): Promise<EditProgress> {
  return found.handle.query(EDIT_WORKFLOWS[found.kind].progressQuery).catch((error: unknown) => {
    if (error instanceof WorkflowNotFoundError) throw new UserError(`run ${run} is not open (its workflow is not found)`);
    throw new UserError(`cannot read run ${run}: ${rootMessage(error)}`);
  });
}

/** `commonplace review approve RUN FILE --key KEY`: sends the answer, then follows the run on. */
export async function runApprove(run: string, file: string, options: ApproveOptions): Promise<void> {
  // A run ID names its run directory: an unknown run or a file not in it is refused before the server is asked.
  if (!run.includes('/')) await runRelative((await recordedRun(options.kb, run)).runDir, file);
  const client = await connectClient();
  await requireSearchAttributes(client);
  const found = await resolveRun(client, options.kb, run);
  const relative = await runRelative(found.runDir, file);
  await requireWorkflowWorker(client, `the approval of ${relative} for ${found.runId}`, found.checkout);
  const progress = await progressOf(found, run);
  const waiting = progress.stops[0];
  const proposal = waiting?.kind === 'awaiting-approval' ? waiting.proposal : undefined;
  const answer = await approvalAnswer(found.runDir, progress, relative, options.key);
  if (proposal && !proposal.exact && proposal.path === relative) {
    // Say what is wrong with an edited selection list before anything is sent.
    const parsed = parseSelectionList(answer.text);
    const selected = proposal.inputs[0] && (await readFile(path.join(found.runDir, proposal.inputs[0].path), 'utf8').catch(() => undefined));
    const located = parsed.ok && selected !== undefined ? locateSelections(selected, parsed.selections) : undefined;
    const findings = !parsed.ok ? parsed.findings : located && !located.ok ? located.findings : [];
    if (findings.length > 0) throw new UserError(`${relative} cannot be applied as it stands: ${formatFindingsInline(findings)}; nothing was approved`);
  }
  await answered(found.handle.executeUpdate(EDIT_WORKFLOWS[found.kind].approveUpdate, { args: [answer] }));
  process.stderr.write(`approved ${relative} for ${found.runId}${proposal ? ` (stop ${proposal.stop})` : ''}; the run goes on\n`);
  if (!options.detach) await followEdit(found.handle, found.kind, options.json);
}

/** `commonplace review acknowledge RUN`: owns a checkout-changed stop's paths, then follows the run on. */
export async function runAcknowledge(run: string, options: AcknowledgeOptions): Promise<void> {
  const sweep = namedSweep(run);
  const compare = namedCompareRun(run);
  if (sweep === undefined && compare === undefined && !run.includes('/')) await recordedRun(options.kb, run);
  const client = await connectClient();
  await requireSearchAttributes(client);
  if (compare !== undefined) return acknowledgeCompare(client, compare, options.json ?? false);
  if (sweep !== undefined) return acknowledgeSweep(client, sweep, options);
  const found = await resolveRun(client, options.kb, run);
  await requireWorkflowWorker(client, `the acknowledgement for ${found.runId}`, found.checkout);
  const progress = await progressOf(found, run);
  await acknowledge('run', found.runId, progress, (answer) => found.handle.executeUpdate(EDIT_WORKFLOWS[found.kind].acknowledgeUpdate, { args: [answer] }));
  if (!options.detach) await followEdit(found.handle, found.kind, options.json);
}

/** A refused answer in one line. */
const answered = <T>(sent: Promise<T>): Promise<T> =>
  sent.catch((error: unknown) => {
    throw new UserError(`refused: ${rootMessage(error)}`);
  });

/** An open sweep's or compare run's progress, or a refusal naming the run. */
const openProgress = <P>(handle: WorkflowHandle, query: QueryDefinition<P>, what: string): Promise<P> =>
  handle.query(query).catch((error: unknown) => {
    throw new UserError(`no open ${what} (workflow ${handle.workflowId}): ${rootMessage(error)}`);
  });

/** Sends the acknowledgement of a checkout-changed stop's paths, or says why there is nothing to acknowledge. */
async function acknowledge(
  what: string,
  run: string,
  progress: { status: string; stops: readonly Stop[] },
  send: (answer: AcknowledgeAnswer) => Promise<unknown>,
) {
  const stop = progress.stops[0];
  if (stop?.kind !== 'checkout-changed')
    throw new UserError(
      `${what} ${run} is not stopped on a checkout change (it is ${progress.status}${stop ? `: ${stop.kind}` : ''}); there is nothing to acknowledge`,
    );
  await answered(send({ paths: stop.paths }));
  process.stderr.write(`acknowledged for ${run}: ${stop.paths.join(', ')}\n`);
}

/** Acknowledges a sweep's checkout-changed stop: the operator owns the KB paths it named, and the sweep goes on. */
async function acknowledgeSweep(client: Client, run: string, { detach, json }: AcknowledgeOptions): Promise<void> {
  await requireWorkflowWorker(client, `the acknowledgement for ${run}`);
  const handle = client.workflow.getHandle<typeof gateSweep>(sweepWorkflowId(run));
  const progress = await openProgress(handle, sweepProgressQuery, `sweep ${run}`);
  await acknowledge('sweep', run, progress, (answer) => handle.executeUpdate(sweepAcknowledgeUpdate, { args: [answer] }));
  if (!detach) await followSweep(client, handle, { json });
}

/** Acknowledges a compare run's checkout-changed stop (a KB change while one of its routes' launches ran), and follows it on. */
async function acknowledgeCompare(client: Client, run: string, json: boolean): Promise<void> {
  const handle = client.workflow.getHandle<typeof compareRun>(compareWorkflowId(run));
  const progress = await openProgress(handle, compareProgressQuery, `compare run ${run}`);
  await acknowledge('compare run', run, progress, (answer) => handle.executeUpdate(compareAcknowledgeUpdate, { args: [answer] }));
  await follow(handle, compareFormat(client, { json }));
}
