/** What a run spent, launch by launch, and the one decision a `--max-cost` cap makes before each launch. PURE MODULE. */
import { launchCost } from '../harness/prices.js';
import type { AskOutcome, BilledTry, SpendTotals, TokenTotals } from '../harness/launch-contract.js';

export type { SpendTotals, TokenTotals } from '../harness/launch-contract.js';

export interface SpendProgress {
  /** `--max-cost` in USD. */
  capUsd?: number;
  launches: number;
  costUsd: number;
  unpriced: number;
  tokens: TokenTotals;
}

export const emptyTokens = (): TokenTotals => ({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0 });

/** In place; a launch of unknown cost counts as unpriced. */
export function addLaunch(totals: SpendTotals, launch: BilledTry): void {
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

/** Every try of an ask the provider billed, whatever became of its answer (a failed launch's too). */
export function billedTries(outcome: AskOutcome): BilledTry[] {
  if ('result' in outcome) return [...(outcome.result.billedBefore ?? []), outcome.result];
  return outcome.status === 'usage-limit' || outcome.status === 'launch-failed' ? (outcome.billed ?? []) : [];
}

export function addTotals(into: SpendTotals, from: SpendTotals): void {
  into.launches += from.launches;
  into.costUsd += from.costUsd;
  into.unpriced += from.unpriced;
  into.tokens.input += from.tokens.input;
  into.tokens.output += from.tokens.output;
  into.tokens.cacheRead += from.tokens.cacheRead;
  into.tokens.cacheWrite += from.tokens.cacheWrite;
}

export function sumTotals(...all: SpendTotals[]): SpendTotals {
  const sum: SpendTotals = { launches: 0, costUsd: 0, unpriced: 0, tokens: emptyTokens() };
  for (const each of all) addTotals(sum, each);
  return sum;
}

export function meanCost(totals: SpendTotals): number | undefined {
  const priced = totals.launches - totals.unpriced;
  return priced > 0 ? totals.costUsd / priced : undefined;
}

export type SpendDecision = { go: true } | { go: false; spentUsd: number; meanUsd: number; estimateUsd: number; capUsd: number };

/** The launches in flight and this one are each estimated at the mean cost so far; before any cost is known a launch always starts. */
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

/** How many of a provider batch's `count` launches fit under the cap, estimated as `spendDecision` does, and the decision the first misfit meets. */
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

export interface SpendLimitFields {
  spentUsd: number;
  capUsd: number;
  meanUsd: number;
}

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

/** A spend-limit stop's figures from the spend now, once the launches in flight at the stop settled. */
export function settledSpendLimit<S extends Partial<SpendLimitFields> & { reason: string }>(stop: S, totals: SpendTotals, capUsd: number | undefined): S {
  const meanUsd = meanCost(totals) ?? stop.meanUsd;
  const cap = capUsd ?? stop.capUsd;
  if (meanUsd === undefined || cap === undefined) return stop;
  const settled = spendLimitStop({ go: false, spentUsd: totals.costUsd, meanUsd, estimateUsd: totals.costUsd + meanUsd, capUsd: cap });
  return { ...stop, reason: settled.reason, spentUsd: settled.spentUsd, capUsd: settled.capUsd, meanUsd: settled.meanUsd };
}

/** Room for the next launch, and above the cap it stopped at (half-price batch answers can leave spend plus one launch under it). */
function leastCapText(next: number, capUsd: number | undefined): string {
  const least = centsUp(Math.max(next, capUsd ?? 0));
  return `$${(capUsd !== undefined && least <= capUsd ? least + 0.01 : least).toFixed(2)}`;
}

/** Why a resume with this cap is refused: a run stopped at its cap needs room for one more launch at the mean cost. */
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

/** `$0.4200 of $1.00 cap (1 launch of unknown cost)`, or `cost unknown` when no launch's cost is known. */
export function spendLine(spend: { capUsd?: number | undefined } & SpendTotals): string {
  const unpriced = spend.unpriced ?? 0;
  const cost = spend.launches === unpriced && spend.launches > 0 ? 'cost unknown' : usd(spend.costUsd);
  return `${cost}${spend.capUsd !== undefined ? ` of ${usd(spend.capUsd)} cap` : ''}${unpriced > 0 && spend.launches !== unpriced ? ` (${unpriced} launch${unpriced === 1 ? '' : 'es'} of unknown cost)` : ''}`;
}

/** In whole cents: the spend plus one mean launch. */
export function nextCap(totals: SpendTotals): number {
  return centsUp(totals.costUsd + (meanCost(totals) ?? 0));
}

/** Float noise below a millionth of a cent is not rounded up. */
export function centsUp(amount: number): number {
  return Math.ceil(amount * 100 - 1e-6) / 100;
}
