/**
 * The records the editing workflows (full pass, revision), their activities and the CLI share.
 * Types only: workflow code imports them, so nothing here may pull in a Node built-in.
 */
import type { Profile } from '../../harness/profiles.js';
import type { LifecycleProgress, RunStatus, Stop } from '../../runs/stop.js';
import type { SpendProgress } from '../../runs/spend.js';
import type { ResultSpend } from '../result-file.js';
import type { Outcome } from '../result-line.js';
import type { WatchedPart } from '../hash.js';
import type { Plan } from './plan-types.js';

export type EditKind = 'full-pass' | 'revise';

/** The options a full pass is started with; recorded with the run, and a repeat must ask the same. */
export interface FullPassOptions {
  profile: string;
  /** A steer for the editor (`--direction TEXT`), or null. */
  direction: string | null;
}

/** The options a revision is started with: its mode is chosen once per note text. */
export interface ReviseOptions {
  profile: string;
  mode: 'plan' | 'assess';
  /** SHA-256 of the `--plan` file's text (mode plan), or null. */
  planSha256: string | null;
}

export type EditOptions = FullPassOptions | ReviseOptions;

/** What every editing run is started with. `noteSha256` is the run's identity: the note text the CLI read. */
export interface EditRunInput {
  checkout: string;
  note: string;
  noteSha256: string;
  runId: string;
  concurrency: number;
  profilesFile?: string;
  /** Environment added to the profile's (a fake-harness scenario in tests and the demo). */
  env?: Record<string, string>;
  /** The `--max-cost` cap in US dollars: a launch that would take the run past it stops the run (`spend-limit`). */
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

/** One criterion a full pass asks over each text, with what its note hash watches. */
export interface EditCriterion {
  id: string;
  /** The criterion file, repository-relative (its captured copy is in the brief). */
  path: string;
  report: boolean;
  watches: WatchedPart[];
}

/** One launch's worth of review: one lens's gates (a bundle), or the critique alone. */
export interface ReviewUnit {
  key: string;
  lens: string;
  criteria: EditCriterion[];
}

/** A file the run's workers were handed or its checks depend on, as captured when the run began. */
export interface BriefEntry {
  /** Repository-relative path (for a shipped default instruction: the KB path that would override it). */
  path: string;
  /** `kb`: the KB's file; `shipped`: the package's default, used because the KB has none. */
  source: 'kb' | 'shipped';
  sha256: string;
}

/** What preparation fixed for the run: its directory, profile, the start text, the brief and the guard's baseline. */
export interface PreparedEdit {
  runId: string;
  runDir: string;
  workflowId: string;
  profile: Profile;
  startSha256: string;
  brief: BriefEntry[];
  /** The guard baseline's file name in the run directory. */
  baseline: string;
  /** Full pass: the review units (one per lens, and the critique). */
  units: ReviewUnit[];
  /** Revision with --plan: the validated plan. */
  plan?: Plan;
}

/** One accepted review of one text under one criterion; its body is in the run's store. */
export interface ReviewRecord {
  criterion: string;
  outcome: Outcome;
  /** The text it reviewed (SHA-256 of the whole text, the store key). */
  textSha256: string;
  bodySha256: string;
  launchId: string;
  profile: string;
  model: string;
  /** Its share of its launch's cost and tokens. */
  spend: ResultSpend;
}

/** A launch directory prepared by code: the captured inputs are in it, the worker writes `outputs` there. */
export interface PreparedAsk {
  dir: string;
  prompt: string;
  outputs: string[];
}

export type { AcknowledgeAnswer, ApprovalAnswer, Proposal } from '../../runs/stop.js';

/** The stop an editing run is in, when it is in one. */
export type EditStop = Stop;

export type EditStatus = RunStatus;

export interface EditProgress extends LifecycleProgress {
  kind: EditKind;
  note: string;
  runDir: string | null;
  launches: number;
}

export type Decision = 'edit' | 'no-edit';

/** How a run ended. */
export interface EditSummary {
  kind: EditKind;
  runId: string;
  note: string;
  runDir: string;
  decision: Decision;
  /** `published`: the note was written; `unchanged`: no edit, packet (and results) published; `exhausted`: a spent budget ended the run, nothing was published. */
  outcome: 'published' | 'unchanged' | 'exhausted';
  /** Set when the run ended exhausted: the stop that ended it. */
  stop?: Stop;
  startSha256: string;
  finalSha256: string;
  packet: string;
  closing: string;
  written: string[];
  launches: number;
  /** What the run's launches spent (absent in summaries made before spend was tracked). */
  spend?: SpendProgress;
}
