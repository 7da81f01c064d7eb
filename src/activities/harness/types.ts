import type { Profile } from '../../harness/profiles.js';
import type { TokenUsage } from '../../harness/report.js';

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
