/** The records the editing workflows, their activities and the CLI share. PURE MODULE: types only. */
import type { Profile } from '../../harness/profiles.js';
import type { LifecycleProgress, Stop } from '../../runs/stop.js';
import type { SpendProgress } from '../../runs/spend.js';
import type { ResultSpend } from '../result-file.js';
import type { Outcome } from '../result-line.js';
import type { WatchedPart } from '../hash.js';
import type { Plan } from './plan-types.js';

export type EditKind = 'full-pass' | 'revise';

/** Recorded with the run: a repeat must ask the same. */
export interface FullPassOptions {
  profile: string;
  /** `--direction TEXT`. */
  direction: string | null;
}

/** Its mode is chosen once per note text. */
export interface ReviseOptions {
  profile: string;
  mode: 'plan' | 'assess';
  /** Of the `--plan` file's text (mode plan). */
  planSha256: string | null;
}

export type EditOptions = FullPassOptions | ReviseOptions;

/** `noteSha256` is the run's identity: the note text the CLI read. */
export interface EditRunInput {
  checkout: string;
  note: string;
  noteSha256: string;
  runId: string;
  concurrency: number;
  profilesFile?: string;
  /** Added to the profile's (a fake-harness scenario in tests and the demo). */
  env?: Record<string, string>;
  /** `--max-cost` in USD. */
  maxCostUsd?: number;
}

export interface FullPassInput extends EditRunInput {
  options: FullPassOptions;
}

export interface ReviseInput extends EditRunInput {
  options: ReviseOptions;
  /** The `--plan` file's text (mode plan); its digest is `options.planSha256`. */
  planText?: string;
}

export interface EditCriterion {
  id: string;
  /** Repository-relative; its captured copy is in the brief. */
  path: string;
  report: boolean;
  watches: WatchedPart[];
}

/** One launch's worth: one lens's gates (a bundle), or the critique alone. */
export interface ReviewUnit {
  key: string;
  lens: string;
  criteria: EditCriterion[];
}

/** A file the run's workers were handed or its checks depend on, as captured when the run began. */
export interface BriefEntry {
  /** For a shipped default: the KB path that would override it. */
  path: string;
  /** `shipped`: the package's default, used because the KB has none. */
  source: 'kb' | 'shipped';
  sha256: string;
}

export interface PreparedEdit {
  runId: string;
  runDir: string;
  workflowId: string;
  profile: Profile;
  startSha256: string;
  brief: BriefEntry[];
  /** The guard baseline's file name in the run directory. */
  baseline: string;
  /** Full pass: one per lens, and the critique. */
  units: ReviewUnit[];
  /** Revision with --plan. */
  plan?: Plan;
}

/** Its body is in the run's store. */
export interface ReviewRecord {
  criterion: string;
  outcome: Outcome;
  /** The store key of the text it reviewed. */
  textSha256: string;
  bodySha256: string;
  launchId: string;
  profile: string;
  model: string;
  /** Its share of its launch's cost and tokens. */
  spend: ResultSpend;
}

/** The captured inputs are in it; the worker writes `outputs` there. */
export interface PreparedAsk {
  dir: string;
  prompt: string;
  outputs: string[];
}

export type { AcknowledgeAnswer, ApprovalAnswer, Proposal } from '../../runs/stop.js';

export interface EditProgress extends LifecycleProgress {
  kind: EditKind;
  note: string;
  runDir: string | null;
  launches: number;
}

export type Decision = 'edit' | 'no-edit';

export interface EditSummary {
  kind: EditKind;
  runId: string;
  note: string;
  runDir: string;
  decision: Decision;
  /** `published`: the note was written; `unchanged`: no edit, packet (and results) published; `exhausted`: a spent budget ended the run, nothing was published. */
  outcome: 'published' | 'unchanged' | 'exhausted';
  /** Set when the run ended exhausted. */
  stop?: Stop;
  startSha256: string;
  finalSha256: string;
  packet: string;
  closing: string;
  written: string[];
  launches: number;
  /** Absent in summaries made before spend was tracked. */
  spend?: SpendProgress;
}
