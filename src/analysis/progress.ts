/**
 * The shapes an analysis run is read through: the workflow's input and result, its progress query
 * (which `run` follows and `inspect` prints), and the records kept in it. `run.json` in the run
 * directory is the last progress the workflow wrote, so a finished run reads without Temporal.
 *
 * PURE MODULE: types only.
 */
import type { Finding } from '../kb/findings.js';
import type { Disposition } from '../kb/layouts.js';
import type { LifecycleProgress, RunStatus, Stop } from '../runs/stop.js';
import type { PublicationRecord } from './manifest.js';

export interface AnalysisInput {
  runId: string;
  /** The KB checkout the run was prepared from (the main worktree). */
  checkout: string;
  /** The run's Git worktree: every launch and check happens in it. */
  worktree: string;
  /** The run directory inside the worktree (`.commonplace/analysis/<run-id>`). */
  runDir: string;
  /** After a usage limit with a known reset time, wait for it on a durable timer and go on. */
  autoResume: boolean;
  /** A profiles file other than the worktree's KB profiles or the shipped ones. */
  profilesFile?: string;
  /** Environment added to the profile's (a fake-harness scenario). */
  env?: Record<string, string>;
  /** The `--max-cost` cap in US dollars: a launch that would take the run past it stops the run (`spend-limit`). */
  maxCostUsd?: number;
}

export type AnalysisStatus = RunStatus;
/** What an ask is: a member's first ask, a re-ask with findings, a correction with a refusal, or a fresh ask because its inputs changed. */
export type AskKind = 'write' | 're-ask' | 'correction' | 'fresh';
export type AttemptOutcome = 'accepted' | 'rejected' | 'timed-out' | 'incomplete' | 'usage-limit' | 'launch-failed';

/** A finding as a run records it: the shared `Finding`, without the file (the attempt or check names it). */
export type FindingRecord = Pick<Finding, 'rule' | 'message' | 'severity' | 'line'>;

export interface FrozenSource {
  readonly kind: 'git' | 'directory' | 'bundle';
  /** Where it came from, as given to prepare. */
  readonly location: string;
  /** What the frozen-source role's `source` must say: `git:<url>@<commit>`, `directory:sha256:<digest>`, `bundle:sha256:<digest>`. */
  readonly identity: string;
  /** The pin: the commit for Git, the SHA-256 of the file or of the tree otherwise. */
  readonly digest: string;
  readonly revision?: string;
  /** The captured copy, absolute (a directory, or the bundle file). */
  readonly path: string;
  /** The capture directory it is in, absolute: workers may write there too. */
  readonly captureDir: string;
}

export interface AttemptRecord {
  readonly role: string;
  /** Which attempt of the role's budget this was; null for a launch that spent none (a usage limit, failed relaunches). */
  readonly attempt: number | null;
  /** The role's launch number (every launch, attempt or not). */
  readonly launch: number;
  readonly launchId: string;
  readonly kind: AskKind;
  readonly reason?: string;
  readonly outcome: AttemptOutcome;
  readonly findings: readonly FindingRecord[];
  readonly findingsCount: number;
  readonly sha256?: string;
  readonly model?: string | null;
  readonly durationMs?: number;
  /** What the launch cost in US dollars (null: unknown) and its tokens; absent when nothing was launched or in records made before spend was tracked. */
  readonly costUsd?: number | null;
  readonly tokens?: { readonly input: number; readonly output: number };
  /** Set when no launch was made: the ask's answer key was already answered by this launch, whose answer was checked again. */
  readonly answeredBy?: string;
  /** The launch directory: prompt, handed members, outputs, and the harness's logs under `.launch/`. */
  readonly dir: string;
  readonly verdict?: {
    readonly accepted: readonly string[];
    readonly refused: readonly string[];
    readonly blockers: Readonly<Record<string, readonly string[]>>;
  };
  readonly at: string;
}

export interface CheckRecord {
  readonly role: string;
  readonly sha256: string;
  /** The report check (before verification) or the re-check after corrections. */
  readonly kind: 'report-check' | 're-check';
  readonly round: number;
  readonly passed: boolean;
  readonly findings: readonly FindingRecord[];
  readonly findingsCount: number;
  readonly at: string;
}

export interface MemberRecord {
  readonly role: string;
  readonly path: string;
  readonly sha256: string;
  readonly size: number;
  /** Whether these bytes passed their last check (a re-check can fail a member that passed). */
  readonly check: 'passed' | 'failed';
  readonly verified?: { readonly by: string; readonly outcome: 'accepted' | 'refused'; readonly sha256: string };
  /** The versions of the members it was written from. */
  readonly handed: Readonly<Record<string, string>>;
  readonly attempt: number;
  readonly launchId: string;
  readonly profile: string;
  readonly model: string | null;
  readonly modelSource: 'harness' | 'profile' | 'none';
}

export interface BudgetRecord {
  readonly used: number;
  readonly max: number;
}

export interface InFlightLaunch {
  readonly role: string;
  readonly launchId: string;
  readonly kind: AskKind;
  readonly since: string;
}

export interface AnalysisProgress extends LifecycleProgress {
  readonly system: string;
  readonly profile: string;
  readonly disposition?: Disposition;
  readonly autoResume: boolean;
  readonly source?: FrozenSource;
  readonly budgets: Readonly<Record<string, BudgetRecord>>;
  readonly members: Readonly<Record<string, MemberRecord>>;
  readonly attempts: readonly AttemptRecord[];
  readonly checks: readonly CheckRecord[];
  readonly inFlight: readonly InFlightLaunch[];
  /** The assembled manifest, once written. */
  readonly manifest?: string;
  /** Where the artifact was published and the run-branch commit, once published. */
  readonly publication?: PublicationRecord;
  readonly runDir: string;
  readonly startedAt: string;
  readonly updatedAt: string;
}

/** How a run closed: completed or blocked with its artifact, or exhausted with the stop that ended it. */
export interface AnalysisResult {
  readonly runId: string;
  readonly status: 'completed' | 'blocked' | 'exhausted';
  /** Set for a completed or blocked run. */
  readonly disposition?: Disposition;
  readonly manifest?: string;
  readonly files?: Readonly<Record<string, string>>;
  /** Set for an exhausted run: the stop that ended it. */
  readonly stop?: Stop;
  readonly publication?: PublicationRecord;
  readonly progress: AnalysisProgress;
}
