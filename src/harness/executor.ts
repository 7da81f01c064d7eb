/**
 * The launch contract as executors: what an executor is given (a `LaunchInput`), what it comes to
 * (a `LaunchResult`, or a `usage-limit` / `launch-exit` failure), and the rule that relaunches it.
 * A profile's `harness:` key names its executor; each executor is one module under `executors/`,
 * registered in `executors/index.ts`. The launch activity (`src/activities/harness/launch.ts`) is the
 * only caller: adding an executor touches no workflow.
 *
 * PURE MODULE: types and constants only; workflows import the relaunch rule and timeouts from here.
 */
import type { RetryPolicy } from '@temporalio/common';
import { nonRetryableLaunchErrors, type LaunchActivity, type LaunchInput } from './launch-contract.js';
import type { HarnessName, Profile } from './profiles.js';
import type { HarnessReport } from './report.js';

export type { LaunchInput, LaunchResult, LaunchExitDetails, UsageLimitDetails, LaunchErrorType } from './launch-contract.js';

/**
 * The relaunch rule: a launch that fails (`launch-exit`) is relaunched after 30 s, then 120 s; a third
 * failure is final. Usage limits, a missing CLI and bad input are not retried.
 */
export const relaunchRule = {
  initialInterval: '30s',
  backoffCoefficient: 4,
  maximumInterval: '120s',
  maximumAttempts: 3,
  nonRetryableErrorTypes: nonRetryableLaunchErrors,
} satisfies RetryPolicy;

/** How long the server waits for a launch's heartbeat before it gives the attempt up (a dead worker is noticed in seconds). */
export const launchHeartbeatTimeout = '15s';

/** How often a running launch heartbeats. */
export const launchHeartbeatIntervalMs = 2000;

/** What a launch's start-to-close timeout allows beyond the profile's own timeout: reading, digesting and reporting. */
export const launchReportGraceMs = 5 * 60_000;

/** A launch attempt's start-to-close timeout: the profile's timeout (the executor ends the try there) plus the report's grace. */
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

/** What an executor prepared for one try besides flags: variables over the worker's environment, files it wrote. */
export interface PreparedTry {
  env: Record<string, string>;
  files: LaunchFiles;
}

/** How an executor's event stream reads, for live heartbeat details (`ActivityTracker`). */
export type StreamDialect = 'claude' | 'codex' | 'pi';

/**
 * A coding-agent CLI run as a process in the launch directory: the launch activity starts it as a
 * detached, adoptable try, follows its stdout, and reads its report when it ends.
 */
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
  /** Reads the CLI's standard output in its own format. */
  report(stdout: string): HarnessReport;
  /** What a usage-limit notice of this CLI looks like. */
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

/** What the launch activity hands a model-API executor for one try. */
export interface AnswerContext {
  signal: AbortSignal;
  heartbeat: (details: LaunchActivity) => void;
  /** This try's log directory, relative to the launch directory (named in a `launch-exit`'s details). */
  logDir: string;
}

/**
 * One request to a model API (Anthropic Messages, OpenAI Responses): no process, no tools; inputs
 * inline, outputs written under the launch directory. The launch activity digests its outputs and
 * returns the same `LaunchResult`; a thrown `launch-exit` is relaunched by the same rule.
 */
export interface ApiExecutor {
  readonly kind: 'api';
  readonly name: HarnessName;
  answer(input: LaunchInput, context: AnswerContext): Promise<ExecutorAnswer>;
}

export type Executor = CliExecutor | ApiExecutor;
