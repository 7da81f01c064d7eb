import type { Disposition } from '../../kb/layouts.js';
import type { Manifest } from '../../analysis/manifest.js';
import type { Plan } from '../../analysis/plan.js';
import type { AnalysisProgress, FindingRecord, MemberRecord } from '../../analysis/progress.js';
import type { RunParameters } from '../../analysis/parameters.js';
import type { Profile } from '../../harness/profiles.js';

/** Failure types the analysis activities throw; all but `publication-locked` (another publication holds the lock) are permanent. `environment-changed` and `source-unavailable` carry `EnvironmentChangedDetails`. */
export type AnalysisErrorType = 'bad-plan' | 'bad-profile' | 'bad-run' | 'environment-changed' | 'source-unavailable' | 'publication-locked';
export const nonRetryableAnalysisErrors: AnalysisErrorType[] = ['bad-plan', 'bad-profile', 'bad-run', 'environment-changed', 'source-unavailable'];

/** Details of an `environment-changed` failure: what changed, and the file that says so. */
export interface EnvironmentChangedDetails {
  problems: string[];
  evidence: string;
  /** What found it, as the stop's reason begins (absent: "run state changed"). */
  what?: string;
}

export interface OpenRunInput {
  runDir: string;
  worktree: string;
  profilesFile?: string;
  env?: Record<string, string>;
}

export interface OpenedRun {
  parameters: RunParameters;
  plan: Plan;
  profile: Profile;
  /** The commonplace command line workers use for self-checks. */
  command: string;
}

export interface EnvironmentInput {
  runDir: string;
  worktree: string;
  /** Set while the run publishes: the destination, whose files and commit are publication's own. */
  publishing?: string;
}

export interface EnvironmentOutcome {
  ok: boolean;
  problems: string[];
  /** Where the failed assertion is written (environment.json), when it failed. */
  evidence?: string;
}

export interface HandedMember {
  role: string;
  path: string;
  sha256: string;
}

export interface PrepareLaunchInput {
  runDir: string;
  /** The main checkout the run was prepared from: its state is recorded before the launch, and compared after. */
  checkout?: string;
  role: string;
  launch: number;
  prompt: string;
  handed: HandedMember[];
  /** Store digest of the findings text a re-ask answers. */
  findingsSha256?: string;
  /** The verdict a correction answers: the verifier's stored document, read for this role's blockers. */
  refusal?: { verifier: string; verdictSha256: string; subjects: string[]; roles: string[] };
  feedback: string[];
  type: string;
  recordId?: string;
  cites: string[];
}

export interface PreparedLaunch {
  dir: string;
  /** The main checkout's state as the launch began (a guard snapshot's file in the run directory), when the main checkout was named. */
  checkoutBaseline?: string;
}

export type CheckCandidate = { kind: 'output'; dir: string; output: string; sha256: string } | { kind: 'member'; sha256: string };

export interface CheckInput {
  runDir: string;
  worktree: string;
  role: string;
  /** Names the check's directory: `<launch>` for a candidate, `recheck-<round>` for a re-check. */
  checkId: string;
  layoutFile: string;
  layoutSha256: string;
  candidate: CheckCandidate;
  /** The accepted members as the round began (this role's own left out): role → SHA-256. */
  snapshot: Record<string, string>;
  /** The role's accepted version this candidate would replace. */
  incumbent?: string;
  /** Versions of this role a verifier refused: a candidate with the same bytes is rejected (it corrects nothing). */
  refused?: string[];
  checks: string[];
  /** Set for the frozen-source role: its `source` must say this. */
  frozenSource?: string;
  /** Write the member into the working artifact when it passes. */
  install: boolean;
  /** The main checkout and its state as the launch began: paths changed since are reported. */
  checkoutBaseline?: { checkout: string; file: string };
}

export interface CheckOutcome {
  sha256: string;
  size: number;
  passed: boolean;
  findings: FindingRecord[];
  findingsCount: number;
  /** Store digest of the full findings text, which a re-ask is handed. */
  findingsSha256?: string;
  verdict?: { accepted: string[]; refused: string[]; blockers: Record<string, string[]>; limits: number };
  /** The disposition the member states, for the layout's disposition role. */
  disposition?: Disposition;
  /** Paths changed in the worktree outside run state (a worker wrote where it must not). */
  strays: string[];
  /** Paths of the main checkout that changed while the launch ran (outside run and review state). */
  checkoutChanges?: string[];
  /** Files the worker left in its launch directory beside its declared outputs. */
  extraFiles: string[];
  /** The check's directory: the snapshot it ran against, check.json and findings.md. */
  dir: string;
}

export interface RecordRunInput {
  runDir: string;
  progress: AnalysisProgress;
  manifest: Manifest;
}

export interface AssembleInput {
  runDir: string;
  worktree: string;
  layoutFile: string;
  layoutSha256: string;
  disposition: Disposition;
  members: MemberRecord[];
  manifest: Manifest;
}

export interface PublishInput {
  runDir: string;
  worktree: string;
  layoutFile: string;
  layoutSha256: string;
  /** The assembled manifest the workflow holds. */
  manifest: Manifest;
}

export type { PublicationOutcome } from './publish.js';

export interface Assembly {
  ok: boolean;
  problems: string[];
  manifest: string;
  files: Record<string, string>;
}
