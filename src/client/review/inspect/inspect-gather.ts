/** `review inspect`'s gathering: state live, else from the run directory, else the closed execution; launches from the histories. */
import type { Client, WorkflowHandle } from '@temporalio/client';
import path from 'node:path';
import type { EditKind, EditProgress, EditSummary } from '../../../review/edit/types.js';
import type { SweepProgress } from '../../../review/sweep-types.js';
import type { RunStatus, Stop } from '../../../runs/stop.js';
import { batchProgressQuery, editProgressQuery, sweepProgressQuery } from '../../../workflows/messages.js';
import { connectClient } from '../../shared/connection.js';
import { describeExecution } from '../../shared/run-end.js';
import { editNextCommand } from '../shared/edit-follow.js';
import { readJson, readPacket, readProblems, readProposals } from './inspect-files.js';
import { launchList } from './inspect-history.js';
import type { Inspected, InspectKind, InspectStatus, Located } from './inspect-record.js';
import { sweepNextCommand } from '../shared/sweep-format.js';
import { routingFile, type SweepRouting } from '../../../activities/review/sweep/routing.js';

/** A client, or why there is none: inspect reads what it can without a server. */
export async function optionalClient(): Promise<Client | string> {
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

const CLOSED = ['completed', 'failed', 'cancelled', 'terminated', 'timed-out'] as const;

/** A closed execution's status in inspect's words (`TIMED_OUT` is `timed-out`). */
function closedStatus(name: string): InspectStatus {
  const status = name.toLowerCase().replace('_', '-');
  return CLOSED.find((closed) => closed === status) ?? 'unknown';
}

/** Where the run's state was read: live from its workflow, or from a file of its run directory. */
type State<P> = Pick<Inspected, 'status' | 'live' | 'readFrom'> & { progress?: P };

/** A run's state: live while its workflow runs, else the run directory's summary, else the closed execution. */
async function stateOf<P extends { status: RunStatus }>(
  client: Client | string,
  { workflowId, runDir }: Located,
  ask: (handle: WorkflowHandle) => Promise<P>,
): Promise<State<P>> {
  const summaryFile = path.join(runDir, 'summary.json');
  const summary = await readJson<P>(summaryFile);
  let unavailable: string;
  if (typeof client === 'string') {
    unavailable = `no server answers (${client})`;
  } else {
    const handle = client.workflow.getHandle(workflowId);
    const status = (await describeExecution(handle))?.status;
    if (status === 'RUNNING') {
      const progress = await queryWithin(() => ask(handle));
      if (progress) return { status: progress.status, live: true, readFrom: `live from workflow ${workflowId}`, progress };
      unavailable = `workflow ${workflowId} runs, but no worker answered its progress query within 5 s`;
    } else if (status === undefined) {
      unavailable = `the server has no workflow ${workflowId}`;
    } else if (summary === undefined) {
      return {
        status: closedStatus(status),
        live: false,
        readFrom: `workflow ${workflowId} closed ${status.toLowerCase()}; its run directory has no summary.json`,
      };
    } else {
      unavailable = '';
    }
  }
  if (summary)
    return { status: summary.status ?? 'unknown', live: false, readFrom: `from ${summaryFile}${unavailable ? `; ${unavailable}` : ''}`, progress: summary };
  return { status: 'unknown', live: false, readFrom: `the run directory has no summary.json and ${unavailable}` };
}

/** The part of the document that names the run and says where its state was read. */
function identified(run: string, kind: InspectKind, checkout: string, { runId, workflowId, runDir }: Located, { status, live, readFrom }: State<unknown>) {
  return { run, kind, runId, workflowId, checkout, runDir, status, live, readFrom };
}

export async function inspectSweep(run: string, checkout: string, located: Located, client: Client | string): Promise<Inspected> {
  const state = await stateOf<SweepProgress>(client, located, (handle) => handle.query(sweepProgressQuery));
  const progress = state.progress;
  let currentBatch: NonNullable<Inspected['sweep']>['currentBatch'];
  if (state.live && progress?.currentBatch !== undefined && typeof client !== 'string') {
    const id = progress.currentBatch;
    currentBatch = { workflowId: id, progress: (await queryWithin(() => client.workflow.getHandle(id).query(batchProgressQuery))) ?? null };
  }
  const next = progress ? sweepNextCommand(progress) : undefined;
  const routing = await readJson<SweepRouting>(routingFile(located.runDir));
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
    ...(routing !== undefined && { routing }),
    ...(progress && {
      sweep: {
        pairs: progress.pairs,
        units: progress.units,
        batches: progress.batches,
        batch: progress.batch,
        counts: progress.counts,
        ...(currentBatch && { currentBatch }),
        ...(progress.cachePrefixes && { cachePrefixes: progress.cachePrefixes }),
      },
    }),
  };
}

export async function inspectEdit(run: string, checkout: string, located: Located, client: Client | string): Promise<Inspected> {
  type Recorded = Omit<EditProgress, 'runDir'> & Partial<Omit<EditSummary, 'runDir'>>;
  const state = await stateOf<Recorded>(client, located, (handle) => handle.query(editProgressQuery));
  const recorded = state.progress;
  // A closed run's summary.json is its EditSummary: its status is its outcome, its stop the one that ended it.
  const summary = recorded && !state.live ? (recorded as unknown as EditSummary) : undefined;
  if (summary && state.status === 'unknown') state.status = summary.outcome === 'exhausted' ? 'exhausted' : 'completed';
  const stops: Stop[] = state.live ? [...(recorded?.stops ?? [])] : summary?.stop ? [summary.stop] : [];
  const note = recorded?.note ?? located.record?.note ?? '';
  const status = (state.status === 'exhausted' ? 'exhausted' : (recorded?.status ?? 'running')) as RunStatus;
  const next =
    stops.length > 0 || state.status === 'exhausted'
      ? editNextCommand({ ...located, kind: located.kind as EditKind, note, status, stops, stage: '', resumes: 0, launches: 0 })
      : undefined;
  return {
    ...identified(run, located.kind, checkout, located, state),
    stage: state.live
      ? (recorded?.stage ?? null)
      : summary
        ? `${summary.outcome}: decision ${summary.decision}${summary.closing ? `, closing ${summary.closing}` : ''}`
        : null,
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
