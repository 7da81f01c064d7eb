import type { Profile } from './profiles.js';
import type { TokenUsage } from './report.js';

export interface LaunchInput {
  /** A readable identity for the launch (`<run>/<role>/<attempt>`), recorded in results and logs. */
  launchId: string;
  profile: Profile;
  /** The prepared directory the harness runs in; absolute. */
  dir: string;
  prompt: string;
  /** Declared outputs, relative to `dir`. */
  outputs: string[];
}

export interface OutputDigest {
  path: string;
  sha256: string;
  size: number;
}

/** One shape for every launch that ran to an end, whether it timed out or wrote too little. */
export interface LaunchResult {
  launchId: string;
  profile: string;
  harness: Profile['harness'];
  exitCode: number | null;
  timedOut: boolean;
  durationMs: number;
  outputs: OutputDigest[];
  missing: string[];
  /** The model the harness reported, or the profile's when the harness reports none (`modelSource`). */
  model: string | null;
  modelSource: 'harness' | 'profile' | 'none';
  usage: TokenUsage | null;
  costUsd: number | null;
  /** Which try of the relaunch rule produced this result (1-based). */
  try: number;
  /** Where this try's stdout, stderr and set-aside outputs are, relative to `dir`. */
  logDir: string;
}

/** Failure types the launch activity throws; the permanent ones are listed in `nonRetryableLaunchErrors`. */
export type LaunchErrorType = 'launch-exit' | 'usage-limit' | 'harness-missing' | 'bad-launch-input';

export const nonRetryableLaunchErrors: LaunchErrorType[] = ['usage-limit', 'harness-missing', 'bad-launch-input'];

export interface UsageLimitDetails {
  harness: Profile['harness'];
  notice: string;
  /** ISO time the harness said the limit resets, when it said one. */
  resetAt: string | null;
}

export interface LaunchExitDetails {
  exitCode: number | null;
  stderrTail: string;
  setAside: string[];
  logDir: string;
}

/** What one ask came to, as the workflow sees it; only `completed` can be checked, the rest are stops or spent attempts. */
export type AskOutcome =
  | { status: 'completed'; result: LaunchResult }
  | { status: 'incomplete'; result: LaunchResult }
  | { status: 'timed-out'; result: LaunchResult }
  | { status: 'usage-limit'; reason: string; harness: string; resetAt: string | null }
  | { status: 'launch-failed'; reason: string; exitCode: number | null; logDir: string | null };
