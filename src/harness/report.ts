import type { TokenUsage } from './launch-contract.js';
import type { RateLimitInfo } from './rate-limit.js';

export { rateLimitInfo, type RateLimitInfo } from './rate-limit.js';
export type { TokenUsage } from './launch-contract.js';

/** What a harness said about its own run, each executor reading its own format. */
export interface HarnessReport {
  /** The model the harness recorded as used; undefined when it reports none (codex) or no request succeeded. */
  model?: string;
  usage?: TokenUsage;
  costUsd?: number;
  /** The final text the harness printed as its answer or error, where it has one. */
  resultText?: string;
  /** An error the harness reported in its structured output: the run failed, whatever its exit code. */
  errorText?: string;
  /** claude stream-json's last `rate_limit_event`. */
  rateLimit?: RateLimitInfo;
  /** The last `allowed_warning`: a window nearly used up. */
  rateLimitWarning?: RateLimitInfo;
  turns?: number;
  toolUses?: number;
}

/** An answer longer than this is a document, not a limit notice, even if it mentions one. */
const maxNoticeLength = 600;

/** Claude has reported a limit as a `success` result with exit 0, so a short result text is searched too. */
export function findUsageLimitIn(
  executor: { usageLimitPatterns: readonly RegExp[]; errorEvents: boolean },
  stdout: string,
  stderr: string,
  report: HarnessReport,
): string | undefined {
  const candidates: string[] = [];
  if (report.errorText) candidates.push(report.errorText);
  if (report.resultText !== undefined && report.resultText.trim().length <= maxNoticeLength) candidates.push(report.resultText);
  if (stderr.trim()) candidates.push(stderr.trim().slice(-4000));
  const structured = report.model !== undefined || report.usage !== undefined || report.resultText !== undefined;
  if (!structured && stdout.trim().length <= 4 * maxNoticeLength) candidates.push(stdout.trim());
  if (executor.errorEvents) {
    // codex and pi report errors as JSON events; search those lines, never the model's own text.
    for (const line of stdout.split('\n')) if (/"type"\s*:\s*"(error|turn\.failed)"/.test(line)) candidates.push(line);
  }
  for (const text of candidates) {
    if (executor.usageLimitPatterns.some((pattern) => pattern.test(text))) return text.trim();
  }
  return undefined;
}
