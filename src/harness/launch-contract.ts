import type { Profile } from './profiles.js';
import type { RateLimitInfo } from './rate-limit.js';

export type { RateLimitInfo } from './rate-limit.js';

/** Tokens one launch used, as its harness reported them. */
export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens?: number;
  /** Every token written to the prompt cache, whatever its lifetime. */
  cacheWriteTokens?: number;
  /** Of `cacheWriteTokens`, those written for an hour (Anthropic `ttl: "1h"`, priced at 2× input; the rest at 1.25×). */
  cacheWrite1hTokens?: number;
}

export interface LaunchInput {
  /** A readable identity for the launch (`<run>/<role>/<attempt>`), recorded in results and logs. */
  launchId: string;
  profile: Profile;
  /** The prepared directory the harness runs in; absolute. */
  dir: string;
  prompt: string;
  /** Declared outputs, relative to `dir`. */
  outputs: string[];
  /**
   * Files written into `dir` (relative path → text) before a fresh try, with the prompt as `prompt.md`: a
   * launch carrying its inputs runs in a directory under its own worker's state (`<state>/…`), so it runs on any worker.
   */
  files?: Record<string, string>;
  /** Return the declared outputs' bytes in the result (`outputBytes`), each up to this many bytes; a larger one is listed in `oversize`. */
  returnOutputs?: { maxBytes: number };
}

/** The most a launch returns of one output in its result: its result must stay well inside Temporal's payload limit (2 MB). */
export const RETURNED_OUTPUT_CAP = 1024 * 1024;

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
  /** The harness warned that a usage limit is near (claude's `rate_limit_event` with `allowed_warning`). */
  rateLimitWarning?: { type: string; resetsAt: string | null };
  /** Model turns and tool uses the harness reported, where it reports them. */
  turns?: number;
  toolUses?: number;
  /** The outputs' bytes (base64), when the launch was asked to return them. */
  outputBytes?: Record<string, string>;
  /** Outputs over the returned cap: not returned, refused by their check. */
  oversize?: string[];
  /** Files changed in the worker's state directory during the try, outside any launch directory (relative to it): a write nothing else would see. */
  strayWrites?: string[];
  /** Earlier tries of this launch that the provider billed and the relaunch rule set aside (a malformed answer, a CLI that failed after reporting its cost): counted in the spend with this one. */
  billedBefore?: BilledTry[];
  /** The run's recorded answer to the same ask, from an earlier execution that counted it: nothing was asked, nothing is counted again. */
  adopted?: true;
}

/** One try the provider billed, whatever became of its answer: enough to count and price it. */
export interface BilledTry {
  model: string | null;
  usage: TokenUsage | null;
  costUsd: number | null;
}

/** The launch activity's heartbeat details: what the worker is doing right now (`describeLaunchActivity` says it in one line). */
export interface LaunchActivity {
  pid: number | null;
  elapsedMs: number;
  /** Model turns so far (claude: API messages; pi: turn starts; codex: completed commands, file changes and messages). */
  turns: number;
  toolUses: number;
  /** The latest tool use as a short phrase: "Write lens-memory.md", "Run npm test". */
  lastTool?: string;
  /** Tokens processed so far: input, cache reads and writes, and output. */
  tokens?: number;
  /** claude's `allowed_warning`: a rate-limit window nearly used up. */
  rateLimitWarning?: RateLimitInfo;
  /** Since when the CLI has said it cannot reach its endpoint, with nothing else since (codex's "waiting for network"). */
  unreachableSince?: string;
  /** The try an earlier attempt started, which this attempt adopted. */
  adoptedTry?: number;
  /** The billed tries of earlier attempts that failed: carried from attempt to attempt so the last one reports them all. */
  billed?: BilledTry[];
}

/** Failure types the launch activity throws; the permanent ones are listed in `nonRetryableLaunchErrors`. */
export type LaunchErrorType = 'launch-exit' | 'usage-limit' | 'harness-missing' | 'bad-launch-input';

export const nonRetryableLaunchErrors: LaunchErrorType[] = ['usage-limit', 'harness-missing', 'bad-launch-input'];

export interface UsageLimitDetails {
  harness: Profile['harness'];
  notice: string;
  /** ISO time the harness said the limit resets, when it said one. */
  resetAt: string | null;
  /** Which window was hit, when the harness said (claude's rate_limit_event: five_hour, seven_day, …). */
  rateLimitType?: string;
  /** Tries of this launch before the limit that the provider billed. */
  billed?: BilledTry[];
}

export interface LaunchExitDetails {
  exitCode: number | null;
  stderrTail: string;
  setAside: string[];
  logDir: string;
  /** The error the harness reported in its own output, e.g. when it exited 0 after failing. */
  harnessError?: string;
  /** Every try of this launch the provider billed, this one included (a malformed answer is billed). */
  billed?: BilledTry[];
}

/** What one ask came to, as the workflow sees it; only `completed` can be checked, the rest are stops or spent attempts. */
export type AskOutcome =
  | { status: 'completed'; result: LaunchResult }
  | { status: 'incomplete'; result: LaunchResult }
  | { status: 'timed-out'; result: LaunchResult }
  | {
      status: 'usage-limit';
      reason: string;
      harness: string;
      resetAt: string | null;
      /** The account's quota gate, and its probe when the reset is unknown. */ account?: string;
      probeAt?: string;
      /** Earlier tries of the launch that the provider billed. */
      billed?: BilledTry[];
    }
  | { status: 'launch-failed'; reason: string; exitCode: number | null; logDir: string | null; billed?: BilledTry[] };

export interface TokenTotals {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

/**
 * A run's spend so far. `launches` counts every launch that ran to an end; `costUsd` sums the known
 * costs; `unpriced` counts the launches whose cost is unknown (no harness report, no price).
 */
export interface SpendTotals {
  launches: number;
  costUsd: number;
  unpriced: number;
  tokens: TokenTotals;
}
