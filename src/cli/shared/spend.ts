/** `--max-cost` after it is read (shared/options.ts reads it): how a cap goes to a resume, and how spend prints. */
import type { ResumeRequest } from '../../runs/stop.js';
import { spendLine, tokensLine, type SpendProgress } from '../../runs/spend.js';

/** The resume Update's argument: the new cap, when one was given. */
export function resumeRequest(maxCostUsd: number | undefined): ResumeRequest {
  return maxCostUsd === undefined ? {} : { maxCostUsd };
}

/** Said when `--max-cost` meets a run that is attached to, not started or resumed: the cap travels only with those. */
export function capNotApplied(maxCostUsd: number | undefined): string {
  return maxCostUsd === undefined ? '' : '; --max-cost is not applied: a cap is set when a run starts or resumes from a stop';
}

/** The lines a summary or `inspect` prints about what a run spent. */
export function spendLines(spend: SpendProgress | undefined, indent: string, labelWidth: number): string[] {
  if (spend === undefined) return [];
  return [`${indent}${'spent'.padEnd(labelWidth)}${spendLine(spend)} over ${spend.launches} launch${spend.launches === 1 ? '' : 'es'}`, `${indent}${'tokens'.padEnd(labelWidth)}${tokensLine(spend.tokens)}`];
}
