/** An analysis run's input, progress and records; `run.json` is the last progress written, so a finished run reads without Temporal. PURE MODULE. */
import type { Finding } from '../kb/findings.js';
import type { Disposition } from '../kb/layouts.js';
import type { LifecycleProgress, Stop } from '../runs/stop.js';
import type { PublicationRecord } from './manifest.js';

export interface AnalysisInput {
  runId: string;
  /** The main worktree the run was prepared from. */
  checkout: string;
  /** Every launch and check happens in it. */
  worktree: string;
  /** `.commonplace/analysis/<run-id>` inside the worktree. */
  runDir: string;
  autoResume: boolean;
  profilesFile?: string;
  /** Added to the profile's (a fake-harness scenario). */
  env?: Record<string, string>;
  /** `--max-cost` in USD. */
  maxCostUsd?: number;
}

/** What an ask is: a member's first ask, a re-ask with findings, a correction with a refusal, or a fresh ask because its inputs changed. */
export type AskKind = 'write' | 're-ask' | 'correction' | 'fresh';
export type AttemptOutcome = 'accepted' | 'rejected' | 'timed-out' | 'incomplete' | 'usage-limit' | 'launch-failed';

/** The attempt or check names the file. */
export type FindingRecord = Pick<Finding, 'rule' | 'message' | 'severity' | 'line'>;

export interface FrozenSource {
  readonly kind: 'git' | 'directory' | 'bundle';
  readonly location: string;
  /** What the frozen-source role's `source` must say: `git:<url>@<commit>`, `directory:sha256:<digest>`, `bundle:sha256:<digest>`. */
  readonly identity: string;
  /** The commit for Git, else the SHA-256 of the file or the tree. */
  readonly digest: string;
  readonly revision?: string;
  /** Absolute: a directory, or the bundle file. */
  readonly path: string;
  /** Absolute: workers may write there too. */
  readonly captureDir: string;
}

export interface AttemptRecord {
  readonly role: string;
  /** Null for a launch that spent none (a usage limit, failed relaunches). */
  readonly attempt: number | null;
  /** Every launch counts, attempt or not. */
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
  /** USD (null: unknown); absent when nothing was launched, or in records from before spend was tracked. */
  readonly costUsd?: number | null;
  readonly tokens?: { readonly input: number; readonly output: number };
  /** No launch was made: this launch had answered the key, and its answer was checked again. */
  readonly answeredBy?: string;
  /** Prompt, handed members, outputs, and the harness's logs under `.launch/`. */
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
  /** A re-check can fail a member that passed. */
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
  readonly manifest?: string;
  readonly publication?: PublicationRecord;
  readonly runDir: string;
  readonly startedAt: string;
  readonly updatedAt: string;
}

/** Completed or blocked with its artifact, or exhausted with the stop that ended it. */
export interface AnalysisResult {
  readonly runId: string;
  readonly status: 'completed' | 'blocked' | 'exhausted';
  readonly disposition?: Disposition;
  readonly manifest?: string;
  readonly files?: Readonly<Record<string, string>>;
  readonly stop?: Stop;
  readonly publication?: PublicationRecord;
  readonly progress: AnalysisProgress;
}
