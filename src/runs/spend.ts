/**
 * What a run spent — launches, tokens and dollars, summed launch by launch — and the one decision a
 * `--max-cost` cap makes before each launch: go, or stop with `spend-limit`.
 *
 * PURE MODULE: data and arithmetic only; workflows import it.
 */
import { launchCost } from '../harness/prices.js';
import type { AskOutcome, BilledTry, SpendTotals, TokenTotals } from '../harness/launch-contract.js';
import type { TokenUsage } from '../harness/report.js';

export type { SpendTotals, TokenTotals } from '../harness/launch-contract.js';

/** The part of every run's progress that says what it spent and may spend. */
export interface SpendProgress {
  /** The `--max-cost` cap in US dollars, when the run has one. */
  capUsd?: number;
  launches: number;
  costUsd: number;
  unpriced: number;
  tokens: TokenTotals;
}

export const emptyTokens = (): TokenTotals => ({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0 });

/** What one launch that ran reported: enough to price it. */
export interface LaunchSpend {
  model: string | null;
  usage: TokenUsage | null;
  costUsd: number | null;
}

/** Adds one launch to the totals (in place): its tokens, and its cost from the harness or the price table, or counts it unpriced. */
export function addLaunch(totals: SpendTotals, launch: LaunchSpend): void {
  totals.launches += 1;
  const { costUsd } = launchCost(launch);
  if (costUsd === null) totals.unpriced += 1;
  else totals.costUsd += costUsd;
  if (launch.usage) {
    totals.tokens.input += launch.usage.inputTokens;
    totals.tokens.output += launch.usage.outputTokens;
    totals.tokens.cacheRead += launch.usage.cacheReadTokens ?? 0;
    totals.tokens.cacheWrite += launch.usage.cacheWriteTokens ?? 0;
  }
}

/**
 * Every try of an ask the provider billed, whatever became of its answer: the earlier tries the
 * relaunch rule set aside and the launch that ran to an end, or the billed tries of a launch that failed.
 */
export function billedTries(outcome: AskOutcome): BilledTry[] {
  if ('result' in outcome) return [...(outcome.result.billedBefore ?? []), outcome.result];
  return outcome.status === 'usage-limit' || outcome.status === 'launch-failed' ? (outcome.billed ?? []) : [];
}

/** Adds totals to totals (in place). */
export function addTotals(into: SpendTotals, from: SpendTotals): void {
  into.launches += from.launches;
  into.costUsd += from.costUsd;
  into.unpriced += from.unpriced;
  into.tokens.input += from.tokens.input;
  into.tokens.output += from.tokens.output;
  into.tokens.cacheRead += from.tokens.cacheRead;
  into.tokens.cacheWrite += from.tokens.cacheWrite;
}

/** Totals plus totals, as a new record. */
export function sumTotals(...all: SpendTotals[]): SpendTotals {
  const sum: SpendTotals = { launches: 0, costUsd: 0, unpriced: 0, tokens: emptyTokens() };
  for (const each of all) addTotals(sum, each);
  return sum;
}

/** The mean known cost of a launch so far, or undefined before any launch with a known cost. */
export function meanCost(totals: SpendTotals): number | undefined {
  const priced = totals.launches - totals.unpriced;
  return priced > 0 ? totals.costUsd / priced : undefined;
}

export type SpendDecision = { go: true } | { go: false; spentUsd: number; meanUsd: number; estimateUsd: number; capUsd: number };

/**
 * Before a launch: may it start under the cap? The launches in flight and this one are each
 * estimated at the run's mean cost per launch so far; the launch starts when the spend plus that
 * estimate stays within the cap. Without a cap, or before any launch's cost is known (the first
 * launch is always allowed), it starts.
 */
export function spendDecision(input: { capUsd: number | undefined; totals: SpendTotals; inFlight: number }): SpendDecision {
  const { capUsd, totals, inFlight } = input;
  if (capUsd === undefined) return { go: true };
  const mean = meanCost(totals);
  if (mean === undefined) return { go: true };
  const estimateUsd = totals.costUsd + mean * (inFlight + 1);
  // Float noise (a billionth of a dollar) must not stop a run whose estimate lands exactly on its cap.
  if (estimateUsd <= capUsd + 1e-9) return { go: true };
  return { go: false, spentUsd: totals.costUsd, meanUsd: mean, estimateUsd, capUsd };
}

/**
 * Before a provider batch of `count` launches: how many fit under the cap, each estimated at the mean
 * as `spendDecision` estimates one launch (all of them with no cap, or no priced launch yet to take a
 * mean from), and the decision the first that does not fit meets.
 */
export function spendFit(
  input: { capUsd: number | undefined; totals: SpendTotals; inFlight: number },
  count: number,
): { fits: number; refused?: Extract<SpendDecision, { go: false }> } {
  const mean = meanCost(input.totals);
  if (input.capUsd === undefined || mean === undefined || mean <= 0) return { fits: count };
  const room = Math.max(0, Math.floor((input.capUsd + 1e-9 - input.totals.costUsd) / mean) - input.inFlight);
  if (room >= count) return { fits: count };
  const decision = spendDecision({ ...input, inFlight: input.inFlight + room });
  return decision.go ? { fits: count } : { fits: room, refused: decision };
}

/** Dollars as the operator reads them: cents for whole amounts, more digits for small ones. */
export function usd(amount: number): string {
  return `$${amount >= 1 ? amount.toFixed(2) : amount.toFixed(4)}`;
}

/** What a `spend-limit` stop carries: the spend, the cap it would pass, and the mean launch it estimated with. */
export interface SpendLimitFields {
  spentUsd: number;
  capUsd: number;
  meanUsd: number;
}

/** The stop a refused launch makes: what was spent, the estimate that would pass the cap, and what to type. */
export function spendLimitStop(
  decision: Extract<SpendDecision, { go: false }>,
): { kind: 'spend-limit'; disposition: 'operator'; reason: string } & SpendLimitFields {
  return {
    kind: 'spend-limit',
    disposition: 'operator',
    reason: `spent ${usd(decision.spentUsd)} of the ${usd(decision.capUsd)} cap; the next launch (about ${usd(decision.meanUsd)}, the mean so far) would pass it — resume with a higher --max-cost (at least ${leastCapText(decision.spentUsd + decision.meanUsd, decision.capUsd)})`,
    spentUsd: decision.spentUsd,
    capUsd: decision.capUsd,
    meanUsd: decision.meanUsd,
  };
}

/**
 * A spend-limit stop as it stands once the launches in flight at the stop have settled: its figures
 * (spent, the mean, the least cap a resume takes) from the run's spend now, not from when it stopped.
 */
export function settledSpendLimit<S extends Partial<SpendLimitFields> & { reason: string }>(stop: S, totals: SpendTotals, capUsd: number | undefined): S {
  const meanUsd = meanCost(totals) ?? stop.meanUsd;
  const cap = capUsd ?? stop.capUsd;
  if (meanUsd === undefined || cap === undefined) return stop;
  const settled = spendLimitStop({ go: false, spentUsd: totals.costUsd, meanUsd, estimateUsd: totals.costUsd + meanUsd, capUsd: cap });
  return { ...stop, reason: settled.reason, spentUsd: settled.spentUsd, capUsd: settled.capUsd, meanUsd: settled.meanUsd };
}

/**
 * The least cap a resume takes, as the operator types it: room for the next launch, and above the cap it
 * stopped at (a provider batch's half-price answers can leave the spend plus one launch under the cap).
 */
function leastCapText(next: number, capUsd: number | undefined): string {
  const least = centsUp(Math.max(next, capUsd ?? 0));
  return `$${(capUsd !== undefined && least <= capUsd ? least + 0.01 : least).toFixed(2)}`;
}

/**
 * Why a resume with this cap is refused, or undefined to accept it. A run stopped at its cap resumes
 * only with a cap that leaves room for one more launch at the mean cost (above the spent amount); a
 * cap that is not a positive number is refused everywhere.
 */
export function resumeCapProblem(input: { stoppedAtCap: boolean; newCapUsd: number | undefined; totals: SpendTotals; capUsd?: number }): string | undefined {
  const { stoppedAtCap, newCapUsd, totals } = input;
  if (newCapUsd !== undefined && !(Number.isFinite(newCapUsd) && newCapUsd > 0)) return `--max-cost must be a positive amount of US dollars, got ${newCapUsd}`;
  if (!stoppedAtCap) return undefined;
  const next = totals.costUsd + (meanCost(totals) ?? 0);
  const least = leastCapText(next, input.capUsd);
  if (newCapUsd === undefined)
    return `it stopped at its spend cap, having spent ${usd(totals.costUsd)}: resume it with a higher --max-cost (at least ${least})`;
  if (input.capUsd !== undefined && newCapUsd <= input.capUsd)
    return `--max-cost ${usd(newCapUsd)} is not above the ${usd(input.capUsd)} cap it stopped at (give at least ${least})`;
  if (newCapUsd <= totals.costUsd || newCapUsd + 1e-9 < next)
    return `--max-cost ${usd(newCapUsd)} leaves no room for the next launch: ${usd(totals.costUsd)} is spent and a launch costs about ${usd(next - totals.costUsd)} (give at least ${least})`;
  return undefined;
}

/** The spend as a progress record: the cap and the totals with every field present. */
export function spendProgress(capUsd: number | undefined, totals: SpendTotals): SpendProgress {
  return {
    ...(capUsd !== undefined && { capUsd }),
    launches: totals.launches,
    costUsd: totals.costUsd,
    unpriced: totals.unpriced,
    tokens: { ...totals.tokens },
  };
}

/** Tokens in thousands, as a short phrase: `12.3k in, 0.4k out, 40.1k cache read, 9.4k cache write`. */
export function tokensLine(tokens: TokenTotals | undefined): string {
  const t = { ...emptyTokens(), ...tokens };
  const k = (n: number) => `${(n / 1000).toFixed(1)}k`;
  return `${k(t.input)} in, ${k(t.output)} out, ${k(t.cacheRead)} cache read, ${k(t.cacheWrite)} cache write`;
}

/** One phrase for progress lines: `$0.4200 of $1.00 cap (1 launch of unknown cost)`, or `cost unknown` when no launch's cost is known. */
export function spendLine(spend: { capUsd?: number | undefined } & SpendTotals): string {
  const unpriced = spend.unpriced ?? 0;
  const cost = spend.launches === unpriced && spend.launches > 0 ? 'cost unknown' : usd(spend.costUsd);
  return `${cost}${spend.capUsd !== undefined ? ` of ${usd(spend.capUsd)} cap` : ''}${unpriced > 0 && spend.launches !== unpriced ? ` (${unpriced} launch${unpriced === 1 ? '' : 'es'} of unknown cost)` : ''}`;
}

/** The smallest cap, in whole cents, that lets a run stopped at its cap launch once more: the spend plus one mean launch. */
export function nextCap(totals: SpendTotals): number {
  return centsUp(totals.costUsd + (meanCost(totals) ?? 0));
}

/** An amount rounded up to whole cents (float noise below a millionth of a cent is not rounded up). */
export function centsUp(amount: number): number {
  return Math.ceil(amount * 100 - 1e-6) / 100;
}
