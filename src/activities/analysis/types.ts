import type { Disposition } from '../../kb/layouts.js';
import type { Manifest } from '../../analysis/manifest.js';
import type { Plan } from '../../analysis/plan.js';
import type { AnalysisProgress, FindingRecord, MemberRecord } from '../../analysis/progress.js';
import type { RunParameters } from '../../analysis/parameters.js';
import type { Profile } from '../../harness/profiles.js';

/** All but `publication-locked` are permanent; `environment-changed` and `source-unavailable` carry `EnvironmentChangedDetails`. */
export type AnalysisErrorType = 'bad-plan' | 'bad-profile' | 'bad-run' | 'environment-changed' | 'source-unavailable' | 'publication-locked';

export interface EnvironmentChangedDetails {
  problems: string[];
  evidence: string;
  /** How the stop's reason begins (absent: "run state changed"). */
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
  /** For workers' self-checks. */
  command: string;
}

export interface EnvironmentInput {
  runDir: string;
  worktree: string;
  /** While the run publishes: the destination, whose files and commit are publication's own. */
  publishing?: string;
}

export interface EnvironmentOutcome {
  ok: boolean;
  problems: string[];
  /** environment.json, when it failed. */
  evidence?: string;
}

interface HandedMember {
  role: string;
  path: string;
  sha256: string;
}

export interface PrepareLaunchInput {
  runDir: string;
  /** Its state is recorded before the launch and compared after. */
  checkout?: string;
  role: string;
  launch: number;
  prompt: string;
  handed: HandedMember[];
  findingsSha256?: string;
  /** The verifier's stored verdict a correction answers, read for this role's blockers. */
  refusal?: { verifier: string; verdictSha256: string; subjects: string[]; roles: string[] };
  feedback: string[];
  type: string;
  recordId?: string;
  cites: string[];
}

export interface PreparedLaunch {
  dir: string;
  /** The guard snapshot's file, when the main checkout was named. */
  checkoutBaseline?: string;
}

export type CheckCandidate = { kind: 'output'; dir: string; output: string; sha256: string } | { kind: 'member'; sha256: string };

export interface CheckInput {
  runDir: string;
  worktree: string;
  role: string;
  /** `<launch>` for a candidate, `recheck-<round>` for a re-check. */
  checkId: string;
  layoutFile: string;
  layoutSha256: string;
  candidate: CheckCandidate;
  /** As the round began, this role's own left out. */
  snapshot: Record<string, string>;
  incumbent?: string;
  /** A candidate with a refused version's bytes corrects nothing. */
  refused?: string[];
  checks: string[];
  /** The frozen-source role's `source` must say this. */
  frozenSource?: string;
  install: boolean;
  checkoutBaseline?: { checkout: string; file: string };
}

export interface CheckOutcome {
  sha256: string;
  size: number;
  passed: boolean;
  findings: FindingRecord[];
  findingsCount: number;
  /** The full findings text a re-ask is handed. */
  findingsSha256?: string;
  verdict?: { accepted: string[]; refused: string[]; blockers: Record<string, string[]>; limits: number };
  /** For the layout's disposition role. */
  disposition?: Disposition;
  /** Worktree paths changed outside run state: a worker wrote where it must not. */
  strays: string[];
  checkoutChanges?: string[];
  /** Beside its declared outputs. */
  extraFiles: string[];
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
  manifest: Manifest;
}

export type { PublicationOutcome } from './publish.js';

export interface Assembly {
  ok: boolean;
  problems: string[];
  manifest: string;
  files: Record<string, string>;
}
