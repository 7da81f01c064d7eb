/**
 * The action of `review inspect RUN`: a sweep's or an editing run's whole record. Its state comes
 * live from the workflow while the run is open, and from the run directory once it has closed (or
 * when no server answers). Launch records live only in the workflow histories: they are read from
 * the server whenever it answers, and the output says when it does not.
 */
import { defaultPayloadConverter, WorkflowNotFoundError, type Client, type WorkflowHandle } from '@temporalio/client';
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { LaunchInput, LaunchResult } from '../harness/launch-contract.js';
import { launchCost } from '../harness/prices.js';
import { findCheckout } from '../kb/checkout.js';
import type { Finding } from '../kb/findings.js';
import { kindOfWorkflowId } from '../review/edit/identity.js';
import { parsePacket, type PacketRecord } from '../review/edit/packet.js';
import { readRunRecord, runDirOf, RUNS_DIR, type RunRecord } from '../review/edit/runs.js';
import type { EditKind, EditProgress, EditSummary, Proposal } from '../review/edit/types.js';
import type { SweepCounts, SweepProblem, SweepProgress } from '../review/sweep-types.js';
import { spendLine, tokensLine, type SpendProgress, type TokenTotals } from '../runs/spend.js';
import type { RunStatus, Stop } from '../runs/stop.js';
import { batchProgressQuery, type BatchProgress } from '../workflows/gate-batch.js';
import { progressQuery as sweepProgressQuery } from '../workflows/gate-sweep.js';
import { editProgressQuery } from '../workflows/messages.js';
import { connectClient } from './connection.js';
import { UserError } from './errors.js';
import { printJson } from './json-output.js';
import { checkoutPlaces, shown } from './places.js';
import type { InspectOptions } from './review-inspect.js';
import { editNextCommand } from './review-full-pass-run.js';
import { stopLines } from './stop-format.js';
import { duration, sweepNextCommand } from './sweep-format.js';

export type InspectKind = 'sweep' | EditKind;
/** A run's status as inspect reports it: the lifecycle's, a closed execution's own, or unknown (no record, no server). */
export type InspectStatus = RunStatus | 'terminated' | 'timed-out' | 'unknown';

/** One launch as its workflow's history recorded it. */
export interface LaunchRecord {
  /** The workflow that asked it (a sweep's batch child, or the editing run). */
  workflowId: string;
  launchId: string;
  /** The activity's summary, as the Web UI shows it. */
  summary: string | null;
  outcome: 'completed' | 'timed-out' | 'incomplete' | 'failed' | 'cancelled' | 'running';
  /** Why a launch failed, or which outputs an incomplete one left missing. */
  message?: string;
  model: string | null;
  try: number | null;
  exitCode: number | null;
  durationMs: number | null;
  tokens: TokenTotals | null;
  costUsd: number | null;
}

export interface LaunchList {
  source: 'history' | 'unavailable';
  /** Why the launches are not listed (source `unavailable`). */
  why?: string;
  records: LaunchRecord[];
}

export interface ProposalReport {
  /** Run-relative path of the proposal file. */
  path: string;
  key: string;
  stop: number;
  /** The run waits on this proposal now. */
  waiting: boolean;
  /** An answer was recorded (a selection's `.answer.md`; the final manifest's publication journal). */
  answered: boolean;
}

export interface PacketSummary {
  file: string;
  decision: PacketRecord['decision'];
  closing: PacketRecord['closing'];
  resolved: string[];
  remaining: string[];
  introduced: string[];
  passes: string[];
}

interface Located {
  kind: InspectKind;
  runId: string;
  workflowId: string;
  runDir: string;
  record?: RunRecord;
}

const RUN_ID = /^[A-Za-z0-9._-]+$/;

async function readJson<T>(file: string): Promise<T | undefined> {
  const text = await readFile(file, 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}

const exists = (file: string) => stat(file).then(() => true, () => false);

/** The editing run whose run.json names this workflow ID: found in the checkout, no server needed. */
async function runOfWorkflow(checkout: string, workflowId: string): Promise<RunRecord | undefined> {
  const names = await readdir(path.join(checkout, ...RUNS_DIR.split('/'))).catch(() => [] as string[]);
  for (const name of names) {
    const record = await readRunRecord(checkout, name);
    if (record?.workflowId === workflowId) return record;
  }
  return undefined;
}

/** What RUN names: a sweep (by run ID or `gates/…`) or an editing run (by run ID or workflow ID). */
async function locate(checkout: string, run: string, client: Client | undefined): Promise<Located> {
  if (run.startsWith('gates/')) {
    const runId = run.slice('gates/'.length).replace(/\/batch-.*$/, '');
    if (!RUN_ID.test(runId)) throw new UserError(`${run} is not a sweep's workflow ID (gates/<run>)`);
    return { kind: 'sweep', runId, workflowId: `gates/${runId}`, runDir: runDirOf(checkout, runId) };
  }
  const editKind = kindOfWorkflowId(run);
  if (editKind !== undefined) {
    const record = await runOfWorkflow(checkout, run);
    if (record) return { kind: record.kind, runId: record.runId, workflowId: run, runDir: runDirOf(checkout, record.runId), record };
    const runId = client ? ((await client.workflow.getHandle(run).describe().catch(() => undefined))?.memo?.runId as string | undefined) : undefined;
    if (runId === undefined || !RUN_ID.test(runId)) throw new UserError(`no editing run with workflow ID ${run} in ${checkout} (no run.json names it${client ? ', and the server has no such workflow' : ''})`);
    return { kind: editKind, runId, workflowId: run, runDir: runDirOf(checkout, runId) };
  }
  if (!RUN_ID.test(run)) throw new UserError(`${run} is not a run ID (letters, digits, . _ -) nor a workflow ID (gates/…, full-pass/…, revise/…)`);
  const runDir = runDirOf(checkout, run);
  const record = await readRunRecord(checkout, run);
  if (record) return { kind: record.kind, runId: run, workflowId: record.workflowId, runDir, record };
  if ((await exists(path.join(runDir, 'input.json'))) || (await exists(path.join(runDir, 'summary.json')))) return { kind: 'sweep', runId: run, workflowId: `gates/${run}`, runDir };
  if (client && (await client.workflow.getHandle(`gates/${run}`).describe().then(() => true, () => false))) return { kind: 'sweep', runId: run, workflowId: `gates/${run}`, runDir };
  throw new UserError(`no sweep or editing run ${run} in ${checkout}: no ${runDir}${client ? `, and no workflow gates/${run} on the server` : ''}`);
}

/** A client, or why there is none: inspect reads what it can without a server. */
async function optionalClient(): Promise<Client | string> {
  try {
    return await connectClient();
  } catch (error) {
    return ((error as Error).message.split('\n')[0] ?? String(error)).replace(/\.$/, '');
  }
}

/** Answers a query, or undefined when no worker answers within 5 s. */
async function queryWithin<T>(ask: () => Promise<T>): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((done) => {
    timer = setTimeout(() => done(undefined), 5000);
  });
  try {
    return await Promise.race([ask().catch(() => undefined), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The execution's status name, or undefined when the server has no such workflow. */
async function executionStatus(handle: WorkflowHandle): Promise<string | undefined> {
  try {
    return (await handle.describe()).status.name;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return undefined;
    throw error;
  }
}

/** A closed execution's status in inspect's words. */
function closedStatus(name: string): InspectStatus {
  switch (name) {
    case 'COMPLETED':
      return 'completed';
    case 'FAILED':
      return 'failed';
    case 'CANCELLED':
      return 'cancelled';
    case 'TERMINATED':
      return 'terminated';
    case 'TIMED_OUT':
      return 'timed-out';
    default:
      return 'unknown';
  }
}

type History = Awaited<ReturnType<WorkflowHandle['fetchHistory']>>;
type HistoryEvent = NonNullable<History['events']>[number];

const decode = (payload: unknown): unknown => (payload ? defaultPayloadConverter.fromPayload(payload as never) : undefined);

/** Every execution of a workflow and its children (a sweep's batches), oldest first, across continue-as-new. */
async function histories(client: Client, workflowId: string): Promise<{ workflowId: string; events: HistoryEvent[] }[]> {
  const chain: HistoryEvent[][] = [];
  let runId: string | undefined;
  for (let hop = 0; hop < 1000; hop++) {
    const events = (await client.workflow.getHandle(workflowId, runId).fetchHistory()).events ?? [];
    chain.unshift(events);
    runId = events[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId ?? undefined;
    if (!runId) break;
  }
  const out: { workflowId: string; events: HistoryEvent[] }[] = [];
  for (const events of chain) {
    out.push({ workflowId, events });
    for (const event of events) {
      const child = event.childWorkflowExecutionStartedEventAttributes?.workflowExecution;
      if (child?.workflowId && child.runId) out.push(...(await childHistories(client, child.workflowId, child.runId)));
    }
  }
  return out;
}

/** A child's executions from its first run forward (a batch continues as new when its history grows). */
async function childHistories(client: Client, workflowId: string, firstRunId: string): Promise<{ workflowId: string; events: HistoryEvent[] }[]> {
  const out: { workflowId: string; events: HistoryEvent[] }[] = [];
  let runId: string | undefined = firstRunId;
  for (let hop = 0; runId && hop < 1000; hop++) {
    const events: HistoryEvent[] = (await client.workflow.getHandle(workflowId, runId).fetchHistory()).events ?? [];
    out.push({ workflowId, events });
    runId = events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
  }
  return out;
}

const tokensOf = (usage: LaunchResult['usage']): TokenTotals | null =>
  usage === null ? null : { input: usage.inputTokens, output: usage.outputTokens, cacheRead: usage.cacheReadTokens ?? 0, cacheWrite: usage.cacheWriteTokens ?? 0 };

/** The `launch` activities of one execution: scheduled, and how each closed (or that it still runs). */
function launchesIn(workflowId: string, events: HistoryEvent[]): LaunchRecord[] {
  const records = new Map<string, LaunchRecord>();
  const closed = (scheduledEventId: unknown) => records.get(String(scheduledEventId));
  for (const event of events) {
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled?.activityType?.name === 'launch') {
      const input = decode(scheduled.input?.payloads?.[0]) as Partial<LaunchInput> | undefined;
      const summary = decode(event.userMetadata?.summary);
      records.set(String(event.eventId), {
        workflowId,
        launchId: input?.launchId ?? '(unknown)',
        summary: typeof summary === 'string' ? summary : null,
        outcome: 'running',
        model: null,
        try: null,
        exitCode: null,
        durationMs: null,
        tokens: null,
        costUsd: null,
      });
      continue;
    }
    const completed = event.activityTaskCompletedEventAttributes;
    const failed = event.activityTaskFailedEventAttributes ?? event.activityTaskTimedOutEventAttributes;
    const cancelled = event.activityTaskCanceledEventAttributes;
    const record = closed(completed?.scheduledEventId ?? failed?.scheduledEventId ?? cancelled?.scheduledEventId);
    if (!record) continue;
    if (completed) {
      const result = decode(completed.result?.payloads?.[0]) as LaunchResult | undefined;
      if (!result) continue;
      record.outcome = result.timedOut ? 'timed-out' : result.missing.length > 0 ? 'incomplete' : 'completed';
      if (result.missing.length > 0) record.message = `missing ${result.missing.join(', ')}`;
      record.model = result.model;
      record.try = result.try;
      record.exitCode = result.exitCode;
      record.durationMs = result.durationMs;
      record.tokens = tokensOf(result.usage);
      record.costUsd = launchCost(result).costUsd;
    } else if (failed) {
      record.outcome = 'failed';
      const failure = failed.failure;
      record.message = [failure?.cause?.message, failure?.message].find((message) => message) ?? 'the activity failed';
    } else {
      record.outcome = 'cancelled';
    }
  }
  return [...records.values()];
}

/** Every launch of the run, read from its histories (and its batches'). */
async function launchList(client: Client | string, workflowId: string): Promise<LaunchList> {
  if (typeof client === 'string') return { source: 'unavailable', why: `the run directory holds no launch records and no server answers (${client})`, records: [] };
  try {
    const all = await histories(client, workflowId);
    return { source: 'history', records: all.flatMap(({ workflowId: id, events }) => launchesIn(id, events)) };
  } catch (error) {
    const why = error instanceof WorkflowNotFoundError ? `the server no longer has workflow ${workflowId} (its history was deleted after the retention period)` : ((error as Error).message.split('\n')[0] ?? String(error));
    return { source: 'unavailable', why: `the run directory holds no launch records and ${why}`, records: [] };
  }
}

async function readProblems(runDir: string): Promise<SweepProblem[]> {
  const text = await readFile(path.join(runDir, 'problems.jsonl'), 'utf8').catch(() => '');
  return text.split('\n').filter(Boolean).map((line) => JSON.parse(line) as SweepProblem);
}

/** The proposals an editing run wrote: the final manifest's record and each selection proposal's. */
async function readProposals(runDir: string, stops: readonly Stop[]): Promise<ProposalReport[]> {
  const waitingOn = stops.flatMap((stop) => (stop.kind === 'awaiting-approval' ? [stop.proposal] : []));
  const found = new Map<string, Proposal>();
  const selections = await readdir(path.join(runDir, 'proposals')).catch(() => [] as string[]);
  for (const name of selections.filter((file) => /^\d+-.+\.json$/.test(file) && !file.endsWith('.decision.json')).sort()) {
    const record = await readJson<Proposal>(path.join(runDir, 'proposals', name));
    if (record?.key) found.set(record.path, record);
  }
  const final = await readJson<Proposal>(path.join(runDir, 'artifact', 'proposal.json'));
  if (final?.key) found.set(final.path, final);
  for (const proposal of waitingOn) if (!found.has(proposal.path) || found.get(proposal.path)!.key !== proposal.key) found.set(proposal.path, proposal);
  const journal = await exists(path.join(runDir, 'publication.journal.jsonl'));
  const reports: ProposalReport[] = [];
  for (const proposal of [...found.values()].sort((a, b) => a.stop - b.stop)) {
    const answered = proposal.path.startsWith('proposals/') ? await exists(path.join(runDir, proposal.path.replace(/\.md$/, '.answer.md'))) : journal;
    reports.push({ path: proposal.path, key: proposal.key, stop: proposal.stop, waiting: waitingOn.some((each) => each.key === proposal.key), answered });
  }
  return reports;
}

async function readPacket(runDir: string): Promise<PacketSummary | null> {
  const file = path.join(runDir, 'packet.md');
  const text = await readFile(file, 'utf8').catch(() => undefined);
  if (text === undefined) return null;
  const parsed = parsePacket(text, file);
  if (!parsed.ok) throw new UserError(`${file} is not a packet: ${parsed.findings.join('; ')}`);
  const { record } = parsed;
  return { file, decision: record.decision, closing: record.closing, resolved: record.resolved, remaining: record.remaining, introduced: record.introduced, passes: record.passes ?? [] };
}

/** Where the run's state was read: live from its workflow, or from a file of its run directory. */
interface State<P> {
  status: InspectStatus;
  live: boolean;
  readFrom: string;
  progress?: P;
}

/** A run's state: live while its workflow runs, else the run directory's summary, else the closed execution. */
async function stateOf<P extends { status: RunStatus }>(client: Client | string, workflowId: string, summaryFile: string, ask: (handle: WorkflowHandle) => Promise<P>): Promise<State<P>> {
  const summary = await readJson<P>(summaryFile);
  let unavailable: string;
  if (typeof client === 'string') {
    unavailable = `no server answers (${client})`;
  } else {
    const handle = client.workflow.getHandle(workflowId);
    const status = await executionStatus(handle);
    if (status === 'RUNNING') {
      const progress = await queryWithin(() => ask(handle));
      if (progress) return { status: progress.status, live: true, readFrom: `live from workflow ${workflowId}`, progress };
      unavailable = `workflow ${workflowId} runs, but no worker answered its progress query within 5 s`;
    } else if (status === undefined) {
      unavailable = `the server has no workflow ${workflowId}`;
    } else if (summary === undefined) {
      return { status: closedStatus(status), live: false, readFrom: `workflow ${workflowId} closed ${status.toLowerCase()}; its run directory has no summary.json` };
    } else {
      unavailable = '';
    }
  }
  if (summary) return { status: summary.status ?? 'unknown', live: false, readFrom: `from ${summaryFile}${unavailable ? `; ${unavailable}` : ''}`, progress: summary };
  return { status: 'unknown', live: false, readFrom: `the run directory has no summary.json and ${unavailable}` };
}

/** The `review-inspect` document's common part. */
interface Inspected {
  run: string;
  kind: InspectKind;
  runId: string;
  workflowId: string;
  checkout: string;
  runDir: string;
  status: InspectStatus;
  live: boolean;
  readFrom: string;
  stage: string | null;
  stops: Stop[];
  next?: string;
  spend?: SpendProgress;
  launches: LaunchList;
  problems: SweepProblem[];
  proposals: ProposalReport[];
  packet: PacketSummary | null;
  /** A sweep's. */
  sweep?: { pairs: number; units: number; batches: number; batch: number; counts: SweepCounts; currentBatch?: { workflowId: string; progress: BatchProgress | null } };
  /** An editing run's. */
  edit?: { note: string; launches: number; summary?: EditSummary };
}

/** The part of the document that names the run and says where its state was read. */
function identified(run: string, kind: InspectKind, checkout: string, located: Located, state: { status: InspectStatus; live: boolean; readFrom: string }) {
  return { run, kind, runId: located.runId, workflowId: located.workflowId, checkout, runDir: located.runDir, status: state.status, live: state.live, readFrom: state.readFrom };
}

async function inspectSweep(run: string, checkout: string, located: Located, client: Client | string): Promise<Inspected> {
  const state = await stateOf<SweepProgress>(client, located.workflowId, path.join(located.runDir, 'summary.json'), (handle) => handle.query(sweepProgressQuery));
  const progress = state.progress;
  let currentBatch: NonNullable<Inspected['sweep']>['currentBatch'];
  if (state.live && progress?.currentBatch !== undefined && typeof client !== 'string') {
    const id = progress.currentBatch;
    currentBatch = { workflowId: id, progress: (await queryWithin(() => client.workflow.getHandle(id).query(batchProgressQuery))) ?? null };
  }
  const next = progress ? sweepNextCommand(progress) : undefined;
  return {
    ...identified(run, 'sweep', checkout, located, state),
    stage: progress?.stage ?? null,
    stops: [...(progress?.stops ?? [])],
    ...(next !== undefined && { next }),
    ...(progress?.spend !== undefined && { spend: progress.spend }),
    launches: await launchList(client, located.workflowId),
    problems: await readProblems(located.runDir),
    proposals: [],
    packet: null,
    ...(progress && { sweep: { pairs: progress.pairs, units: progress.units, batches: progress.batches, batch: progress.batch, counts: progress.counts, ...(currentBatch && { currentBatch }) } }),
  };
}

async function inspectEdit(run: string, checkout: string, located: Located, client: Client | string): Promise<Inspected> {
  type Recorded = Omit<EditProgress, 'runDir'> & Partial<Omit<EditSummary, 'runDir'>>;
  const state = await stateOf<Recorded>(client, located.workflowId, path.join(located.runDir, 'summary.json'), (handle) => handle.query(editProgressQuery));
  const recorded = state.progress;
  // A closed run's summary.json is its EditSummary: its status is its outcome, its stop the one that ended it.
  const summary = recorded && !state.live ? (recorded as unknown as EditSummary) : undefined;
  if (summary && state.status === 'unknown') state.status = summary.outcome === 'exhausted' ? 'exhausted' : 'completed';
  const stops: Stop[] = state.live ? [...(recorded?.stops ?? [])] : summary?.stop ? [summary.stop] : [];
  const note = recorded?.note ?? located.record?.note ?? '';
  const identity = { kind: located.kind as EditKind, runId: located.runId, note, runDir: located.runDir, status: (state.status === 'exhausted' ? 'exhausted' : (recorded?.status ?? 'running')) as RunStatus, stops };
  const next = stops.length > 0 || state.status === 'exhausted' ? editNextCommand({ ...identity, workflowId: located.workflowId, stage: '', resumes: 0, launches: 0 }) : undefined;
  return {
    ...identified(run, located.kind, checkout, located, state),
    stage: state.live ? (recorded?.stage ?? null) : summary ? `${summary.outcome}: decision ${summary.decision}${summary.closing ? `, closing ${summary.closing}` : ''}` : null,
    stops,
    ...(next !== undefined && { next }),
    ...(recorded?.spend !== undefined && { spend: recorded.spend }),
    launches: await launchList(client, located.workflowId),
    problems: [],
    proposals: await readProposals(located.runDir, state.live ? stops : []),
    packet: await readPacket(located.runDir),
    edit: { note, launches: recorded?.launches ?? 0, ...(summary && { summary }) },
  };
}

const money = (amount: number | null) => (amount === null ? 'cost unknown' : `$${amount.toFixed(4)}`);

/** One launch as a line; its ID without the run's prefix, which every launch of the run shares. */
function launchLine(launch: LaunchRecord, runId: string): string {
  const parts: string[] = [launch.outcome];
  if (launch.durationMs !== null) parts.push(duration(launch.durationMs));
  if (launch.tokens) parts.push(tokensLine(launch.tokens));
  if (launch.outcome !== 'running' && launch.outcome !== 'failed' && launch.outcome !== 'cancelled') parts.push(money(launch.costUsd));
  if (launch.model) parts.push(`model ${launch.model}`);
  if (launch.try !== null && launch.try > 1) parts.push(`try ${launch.try}`);
  if (launch.message) parts.push(launch.message);
  const id = launch.launchId.startsWith(`${runId}/`) ? launch.launchId.slice(runId.length + 1) : launch.launchId;
  return `  ${id}: ${parts.join(' · ')}`;
}

const findingLine = (finding: Finding) => `      ${finding.severity} ${finding.rule}${finding.file ? ` (${finding.file}${finding.line !== undefined ? `:${finding.line}` : ''})` : ''}: ${finding.message}`;

/** The record as the operator reads it. */
function formatInspected(inspected: Inspected): string {
  const title = inspected.kind === 'sweep' ? `sweep ${inspected.runId}` : `${inspected.kind} ${inspected.runId} of ${inspected.edit?.note ?? '?'}`;
  const lines = [`${title}: ${inspected.status} (${inspected.readFrom})`, `  workflow       ${inspected.workflowId}`, `  run directory  ${inspected.runDir}`];
  if (inspected.stage) lines.push(`  stage          ${inspected.stage}`);
  const { sweep } = inspected;
  if (sweep) {
    const { counts } = sweep;
    lines.push(`  pairs          ${counts.pairsDone} of ${sweep.pairs} done (${sweep.units} units in ${sweep.batches} batch${sweep.batches === 1 ? '' : 'es'})`);
    lines.push(`  results        pass ${counts.written.pass}, warn ${counts.written.warn}, fail ${counts.written.fail}, report ${counts.written.report}; ${counts.problems} problem${counts.problems === 1 ? '' : 's'}, ${counts.staleOnArrival} stale on arrival`);
    if (sweep.currentBatch) {
      const batch = sweep.currentBatch.progress;
      lines.push(`  running batch  ${sweep.currentBatch.workflowId}${batch ? `: ${batch.status}, ${batch.counts.pairsDone} pairs done, ${batch.left} units left, ${batch.inFlight} in flight` : ' (no answer to its progress query)'}`);
    }
  }
  if (inspected.spend) lines.push(`  spend          ${inspected.spend.launches > 0 ? spendLine(inspected.spend) : 'nothing launched'}; tokens ${tokensLine(inspected.spend.tokens)}`);
  if (inspected.stops.length > 0) {
    lines.push(inspected.status === 'exhausted' ? 'ended by' : 'stops');
    for (const stop of inspected.stops) lines.push(...stopLines(stop, '  ', inspected.kind === 'sweep' ? null : inspected.runDir));
  }
  if (inspected.next) lines.push(`  next: ${inspected.next}`);
  const { launches } = inspected;
  if (launches.source === 'unavailable') lines.push(`launches: not available: ${launches.why}`);
  else {
    lines.push(`launches (${launches.records.length}, from the workflow histories; IDs under ${inspected.runId}/)`);
    lines.push(...launches.records.map((launch) => launchLine(launch, inspected.runId)));
  }
  if (inspected.kind === 'sweep') {
    lines.push(`problems (${inspected.problems.length}, from ${path.join(inspected.runDir, 'problems.jsonl')})`);
    for (const problem of inspected.problems) {
      lines.push(`  ${problem.note} × ${problem.criterion}: ${problem.reason}`);
      if (problem.findings && problem.findings.length > 0) lines.push('    findings:', ...problem.findings.map(findingLine));
    }
  } else {
    lines.push(`proposals (${inspected.proposals.length})`);
    for (const proposal of inspected.proposals) {
      lines.push(`  ${proposal.path}: key ${proposal.key} (decision ${proposal.stop}${proposal.waiting ? ', waiting for approval' : proposal.answered ? ', answered' : ''})`);
    }
    const { packet } = inspected;
    if (packet === null) lines.push('packet: none yet (the run writes packet.md when its work is done)');
    else {
      lines.push(`packet ${packet.file}`, `  decision ${packet.decision}, closing ${packet.closing}`);
      if (packet.resolved.length > 0) lines.push(`  resolved    ${packet.resolved.join(', ')}`);
      if (packet.remaining.length > 0) lines.push(`  remaining   ${packet.remaining.join(', ')}`);
      if (packet.introduced.length > 0) lines.push(`  introduced  ${packet.introduced.join(', ')}`);
      for (const pass of packet.passes) lines.push(`  pass        ${pass}`);
      lines.push(`  whether it still describes the note: commonplace review packet ${inspected.runId}`);
    }
  }
  return lines.map(shown).join('\n');
}

/** `review inspect RUN`: exit 0 once the run is printed; 1 for no such run or a bad run ID. */
export async function runInspect(run: string, options: InspectOptions): Promise<void> {
  const checkout = findCheckout(process.cwd(), options.kb).root;
  // The run's data names the checkout by its token: naming it here shows those as this host's paths.
  await checkoutPlaces(checkout).catch(() => undefined);
  const client = await optionalClient();
  const located = await locate(checkout, run, typeof client === 'string' ? undefined : client);
  const inspected = located.kind === 'sweep' ? await inspectSweep(run, checkout, located, client) : await inspectEdit(run, checkout, located, client);
  if (options.json) printJson('review-inspect', 1, inspected);
  else process.stdout.write(`${formatInspected(inspected)}\n`);
}
