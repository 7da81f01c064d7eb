/**
 * An answered key (src/runs/answer-key.ts) is never launched again. Analysis and editing runs are one execution, so answers in memory
 * (rebuilt by replay) span the run; a sweep spans many, so its answers live in its run directory (src/activities/review/sweep/answers.ts).
 */
import { answerKey, type AskIdentity } from '../../runs/answer-key.js';

export class Answers<A> {
  private readonly byKey = new Map<string, A>();

  get(key: string): A | undefined {
    return this.byKey.get(key);
  }

  set(key: string, answer: A): void {
    this.byKey.set(key, answer);
  }

  /** An answer not accepted after all (its launch wrote outside its outputs): the ask is launched again. */
  delete(key: string): void {
    this.byKey.delete(key);
  }

  get size(): number {
    return this.byKey.size;
  }
}

interface KeyedAsk<A, R> {
  answered: (answer: A) => Promise<R>;
  /** `keep` records the answer under the ask's key once its output was checked. */
  launch: (keep: (answer: A) => void) => Promise<R>;
}

/** Not `async`, and hands back the launch's own promise: parallel asks then issue their commands in the order recorded histories hold. */
export function keyedAsk<A, R>(answers: Answers<A>, identity: AskIdentity, ask: KeyedAsk<A, R>): Promise<R> {
  const key = answerKey(identity);
  const earlier = answers.get(key);
  if (earlier !== undefined) return ask.answered(earlier);
  return ask.launch((answer) => answers.set(key, answer));
}
