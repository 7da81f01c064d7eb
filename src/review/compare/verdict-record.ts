/** A route's verdict, from an accepted review or from a result file the KB holds (`--reference results`). PURE MODULE. */
import type { TokenTotals } from '../../runs/spend.js';
import type { RouteVerdict, Verdict } from './types.js';

/** Its list items, else its paragraphs' first lines; never the result line. */
export function reviewReasons(review: string): string[] {
  const lines = review
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !/^Result: /.test(line) && !/^#/.test(line));
  const items = lines.filter((line) => /^([-*]|\d+[.)])\s+/.test(line)).map((line) => line.replace(/^([-*]|\d+[.)])\s+/, ''));
  return (items.length > 0 ? items : lines).slice(0, 10).map((line) => (line.length > 300 ? `${line.slice(0, 299)}…` : line));
}

/** The result's share of its launch. */
export interface VerdictSpend {
  costUsd: number | null;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

export function spendTokens(spend: VerdictSpend | undefined): TokenTotals {
  return { input: spend?.inputTokens ?? 0, output: spend?.outputTokens ?? 0, cacheRead: spend?.cacheReadTokens ?? 0, cacheWrite: spend?.cacheWriteTokens ?? 0 };
}

export function routeVerdict(input: {
  route: string;
  note: string;
  criterion: string;
  verdict: Verdict;
  review: string;
  executor: string;
  model: string | null;
  spend: VerdictSpend | undefined;
  hashes: { note: string; criterion: string };
}): RouteVerdict {
  return {
    route: input.route,
    note: input.note,
    criterion: input.criterion,
    verdict: input.verdict,
    reasons: reviewReasons(input.review),
    review: input.review,
    executor: input.executor,
    model: input.model,
    tokens: spendTokens(input.spend),
    costUsd: input.spend === undefined ? null : input.spend.costUsd,
    criterionHash: input.hashes.criterion,
    noteHash: input.hashes.note,
  };
}
