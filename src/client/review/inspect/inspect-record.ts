/** The record `review inspect` gathers and prints (the `review-inspect` JSON document), as types. */
import type { PacketRecord } from '../../../review/edit/packet.js';
import type { RunRecord } from '../../../review/edit/runs.js';
import type { EditKind, EditSummary } from '../../../review/edit/types.js';
import type { CachePrefixReport } from '../../../harness/prompt-cache.js';
import type { SweepCounts, SweepProblem } from '../../../review/sweep-types.js';
import type { SweepRouting } from '../../../activities/review/sweep/routing.js';
import type { SpendProgress, TokenTotals } from '../../../runs/spend.js';
import type { RunStatus, Stop } from '../../../runs/stop.js';
import type { BatchProgress } from '../../../workflows/gate-batch.js';

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

export type PacketSummary = Pick<PacketRecord, 'decision' | 'closing' | 'resolved' | 'remaining' | 'introduced'> & { file: string; passes: string[] };

export interface Located {
  kind: InspectKind;
  runId: string;
  workflowId: string;
  runDir: string;
  record?: RunRecord;
}

/** The `review-inspect` document's common part. */
export interface Inspected extends Omit<Located, 'record'> {
  run: string;
  checkout: string;
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
  /** A sweep whose profile declares calibrated-routes: each criterion's route and why (the run's routing.json). */
  routing?: SweepRouting;
  sweep?: {
    pairs: number;
    units: number;
    batches: number;
    batch: number;
    counts: SweepCounts;
    currentBatch?: { workflowId: string; progress: BatchProgress | null };
    cachePrefixes?: CachePrefixReport;
  };
  /** An editing run's. */
  edit?: { note: string; launches: number; summary?: EditSummary };
}
