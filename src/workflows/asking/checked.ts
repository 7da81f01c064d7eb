import type { Finding } from '../../kb/findings.js';
import type { Stop } from '../../runs/stop.js';

export interface CheckedTry<I> {
  input: I;
  attempt: number;
  findings: Finding[];
}

/** What one try came to. `next` narrows what the following try asks (a bundle re-asks only its refused gates). */
export type TryOutcome<I, A> =
  { kind: 'stop'; stop: Stop } | { kind: 'spent'; findings: Finding[] } | { kind: 'checked'; accepted: A[]; findings: Finding[]; next?: I };

export type CheckedResult<I, A> =
  | { status: 'accepted'; accepted: A[]; attempts: number }
  | { status: 'exhausted'; accepted: A[]; attempts: number; pending: I; findings: Finding[] }
  | { status: 'stopped'; accepted: A[]; attempts: number; pending: I; stop: Stop };

/** Re-asks with the check's findings until accepted or the budget is spent; a stop ends it at once, spending no attempt. */
export async function checked<I, A>(input: I, budget: number, tryOnce: (current: CheckedTry<I>) => Promise<TryOutcome<I, A>>): Promise<CheckedResult<I, A>> {
  const accepted: A[] = [];
  let pending = input;
  let findings: Finding[] = [];
  for (let attempt = 1; attempt <= budget; attempt++) {
    const outcome = await tryOnce({ input: pending, attempt, findings });
    if (outcome.kind === 'stop') return { status: 'stopped', accepted, attempts: attempt - 1, pending, stop: outcome.stop };
    findings = outcome.findings;
    if (outcome.kind === 'checked') {
      accepted.push(...outcome.accepted);
      if (outcome.findings.length === 0) return { status: 'accepted', accepted, attempts: attempt };
      if (outcome.next !== undefined) pending = outcome.next;
    }
  }
  return { status: 'exhausted', accepted, attempts: budget, pending, findings };
}

/** What a stop's or a problem's one-line reason quotes of the last findings: their messages. */
export function findingMessages(findings: readonly Finding[]): string {
  return findings.map((finding) => finding.message).join('; ');
}

/** At most `limit` at once, results in input order. A limit that falls meanwhile (a rate-limit warning) ends lanes as their ask finishes. */
export async function gather<T, R>(
  items: readonly T[],
  limit: number | (() => number),
  run: (item: T, index: number) => Promise<R>,
  shouldStart: () => boolean = () => true,
): Promise<(R | undefined)[]> {
  const results: (R | undefined)[] = new Array(items.length).fill(undefined);
  const currentLimit = typeof limit === 'number' ? () => limit : limit;
  let next = 0;
  let lanes = Math.min(currentLimit(), items.length);
  const lane = async (): Promise<void> => {
    while (next < items.length && shouldStart()) {
      if (lanes > Math.max(1, currentLimit())) break;
      const index = next++;
      results[index] = await run(items[index] as T, index);
    }
    lanes -= 1;
  };
  await Promise.all(Array.from({ length: lanes }, lane));
  return results;
}
