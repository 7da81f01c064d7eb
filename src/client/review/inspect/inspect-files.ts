/** `review inspect`'s reading of a checkout's run directories: which run RUN names, its problems, proposals and packet. */
import type { Client } from '@temporalio/client';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { editKindOf, sweepRunIdOf, sweepWorkflowId } from '../../../runs/workflow-ids.js';
import { parsePacket } from '../../../review/edit/packet.js';
import { readRunRecord, runDirOf, RUNS_DIR, type RunRecord } from '../../../review/edit/runs.js';
import type { Proposal } from '../../../review/edit/types.js';
import type { SweepProblem } from '../../../review/sweep-types.js';
import type { Stop } from '../../../runs/stop.js';
import { UserError } from '../../shared/errors.js';
import type { Located, PacketSummary, ProposalReport } from './inspect-record.js';
import { pathExists } from '../../../fs/exists.js';

const RUN_ID = /^[A-Za-z0-9._-]+$/;

export async function readJson<T>(file: string): Promise<T | undefined> {
  const text = await readFile(file, 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}

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
export async function locate(checkout: string, run: string, client: Client | undefined): Promise<Located> {
  const sweepRunId = sweepRunIdOf(run);
  if (sweepRunId !== undefined) {
    if (!RUN_ID.test(sweepRunId)) throw new UserError(`${run} is not a sweep's workflow ID (gates/<run>)`);
    return { kind: 'sweep', runId: sweepRunId, workflowId: sweepWorkflowId(sweepRunId), runDir: runDirOf(checkout, sweepRunId) };
  }
  const editKind = editKindOf(run);
  const described = (workflowId: string) =>
    client?.workflow
      .getHandle(workflowId)
      .describe()
      .catch(() => undefined);
  if (editKind !== undefined) {
    const record = await runOfWorkflow(checkout, run);
    if (record) return { kind: record.kind, runId: record.runId, workflowId: run, runDir: runDirOf(checkout, record.runId), record };
    const runId = (await described(run))?.memo?.runId as string | undefined;
    if (runId === undefined || !RUN_ID.test(runId))
      throw new UserError(
        `no editing run with workflow ID ${run} in ${checkout} (no run.json names it${client ? ', and the server has no such workflow' : ''})`,
      );
    return { kind: editKind, runId, workflowId: run, runDir: runDirOf(checkout, runId) };
  }
  if (!RUN_ID.test(run)) throw new UserError(`${run} is not a run ID (letters, digits, . _ -) nor a workflow ID (gates/…, full-pass/…, revise/…)`);
  const runDir = runDirOf(checkout, run);
  const record = await readRunRecord(checkout, run);
  if (record) return { kind: record.kind, runId: run, workflowId: record.workflowId, runDir, record };
  const sweep = { kind: 'sweep', runId: run, workflowId: sweepWorkflowId(run), runDir } as const;
  if ((await pathExists(path.join(runDir, 'input.json'))) || (await pathExists(path.join(runDir, 'summary.json')))) return sweep;
  if (await described(sweep.workflowId)) return sweep;
  throw new UserError(`no sweep or editing run ${run} in ${checkout}: no ${runDir}${client ? `, and no workflow ${sweep.workflowId} on the server` : ''}`);
}

export async function readProblems(runDir: string): Promise<SweepProblem[]> {
  const text = await readFile(path.join(runDir, 'problems.jsonl'), 'utf8').catch(() => '');
  return text.split('\n').flatMap((line) => (line ? [JSON.parse(line) as SweepProblem] : []));
}

/** The proposals an editing run wrote: the final manifest's record and each selection proposal's. */
export async function readProposals(runDir: string, stops: readonly Stop[]): Promise<ProposalReport[]> {
  const waitingOn = stops.flatMap((stop) => (stop.kind === 'awaiting-approval' ? [stop.proposal] : []));
  const found = new Map<string, Proposal>();
  const selections = await readdir(path.join(runDir, 'proposals')).catch(() => [] as string[]);
  for (const name of selections.filter((file) => /^\d+-.+\.json$/.test(file) && !file.endsWith('.decision.json')).sort()) {
    const record = await readJson<Proposal>(path.join(runDir, 'proposals', name));
    if (record?.key) found.set(record.path, record);
  }
  const final = await readJson<Proposal>(path.join(runDir, 'artifact', 'proposal.json'));
  if (final?.key) found.set(final.path, final);
  for (const proposal of waitingOn) if (found.get(proposal.path)?.key !== proposal.key) found.set(proposal.path, proposal);
  const journal = await pathExists(path.join(runDir, 'publication.journal.jsonl'));
  const reports: ProposalReport[] = [];
  for (const proposal of [...found.values()].sort((a, b) => a.stop - b.stop)) {
    const answered = proposal.path.startsWith('proposals/') ? await pathExists(path.join(runDir, proposal.path.replace(/\.md$/, '.answer.md'))) : journal;
    reports.push({ path: proposal.path, key: proposal.key, stop: proposal.stop, waiting: waitingOn.some((each) => each.key === proposal.key), answered });
  }
  return reports;
}

export async function readPacket(runDir: string): Promise<PacketSummary | null> {
  const file = path.join(runDir, 'packet.md');
  const text = await readFile(file, 'utf8').catch(() => undefined);
  if (text === undefined) return null;
  const parsed = parsePacket(text, file);
  if (!parsed.ok) throw new UserError(`${file} is not a packet: ${parsed.findings.join('; ')}`);
  const { decision, closing, resolved, remaining, introduced, passes = [] } = parsed.record;
  return { file, decision, closing, resolved, remaining, introduced, passes };
}
