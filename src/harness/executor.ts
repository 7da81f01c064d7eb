/** The launch contract as executors, one module each under `executors/`: adding one touches no workflow. PURE MODULE: workflows import the relaunch rule. */
import type { RetryPolicy } from '@temporalio/common';
import { nonRetryableLaunchErrors, type LaunchActivity, type LaunchInput } from './launch-contract.js';
import type { HarnessName, Profile } from './profiles.js';
import type { HarnessReport } from './report.js';

export type { LaunchInput, LaunchResult, LaunchExitDetails, UsageLimitDetails, LaunchErrorType } from './launch-contract.js';

/** A failed launch is relaunched after 30 s, then 120 s; a third failure is final. */
export const relaunchRule = {
  initialInterval: '30s',
  backoffCoefficient: 4,
  maximumInterval: '120s',
  maximumAttempts: 3,
  nonRetryableErrorTypes: nonRetryableLaunchErrors,
} satisfies RetryPolicy;

/** How long the server waits for a launch's heartbeat before it gives the attempt up (a dead worker is noticed in seconds). */
export const launchHeartbeatTimeout = '15s';

export const launchHeartbeatIntervalMs = 2000;

/** What a launch's start-to-close timeout allows beyond the profile's own timeout: reading, digesting and reporting. */
export const launchReportGraceMs = 5 * 60_000;

/** The executor ends the try at the profile's timeout; the grace is for the report. */
export function launchStartToCloseMs(profile: Pick<Profile, 'timeoutMs'>): number {
  return profile.timeoutMs + launchReportGraceMs;
}

/** An executable and its argv; the prompt always goes on standard input. */
export interface CommandLine {
  file: string;
  args: string[];
}

/** What the launch prepared on disk for this try, which some command lines name. */
export interface LaunchFiles {
  /** The profile's startup files joined into one file (claude `--append-system-prompt-file`). */
  startupFile?: string;
}

export type StreamDialect = 'claude' | 'codex' | 'pi';

/** A coding-agent CLI, started as a detached, adoptable process in the launch directory. */
export interface CliExecutor {
  readonly kind: 'cli';
  readonly name: HarnessName;
  /** The executable a profile without `command` runs, and how to install it (for a missing one's message). */
  readonly cli: string;
  readonly install: string;
  defaultCommand(fakeHarnessPath: string): string;
  /** The unattended command line (docs/harnesses.md); the profile's own flags come last. */
  commandLine(profile: Profile, fakeHarnessPath: string, files: LaunchFiles): CommandLine;
  /** Variables this CLI needs for its endpoint and fail-fast settings; the profile's `env` is laid over them. */
  env(profile: Profile): Record<string, string>;
  /** Writes what the CLI reads besides flags (a per-launch config directory) under the launch's state directory. */
  prepare?(profile: Profile, where: { dir: string; stateDir: string; processEnv: NodeJS.ProcessEnv }): Promise<Record<string, string>>;
  readonly dialect: StreamDialect;
  report(stdout: string): HarnessReport;
  readonly usageLimitPatterns: readonly RegExp[];
  /** Whether the CLI reports errors as JSON event lines (`"type":"error"`), searched for notices beside the model's own text. */
  readonly errorEvents: boolean;
}

/** What a non-process executor hands back for one launch: its outputs are already written under `dir`. */
export interface ExecutorAnswer {
  report: HarnessReport;
  /** A usage limit the provider reported, with its reset when it gave one. */
  usageLimit?: { notice: string; resetAt: string | null };
}

export interface AnswerContext {
  signal: AbortSignal;
  heartbeat: (details: LaunchActivity) => void;
  /** This try's log directory, relative to the launch directory (named in a `launch-exit`'s details). */
  logDir: string;
}

/** One request to a model API: no process, no tools, inputs inline; a thrown `launch-exit` is relaunched by the same rule. */
export interface ApiExecutor {
  readonly kind: 'api';
  readonly name: HarnessName;
  answer(input: LaunchInput, context: AnswerContext): Promise<ExecutorAnswer>;
}

export type Executor = CliExecutor | ApiExecutor;
