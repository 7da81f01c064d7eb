/**
 * One keyed ask for the analysis and editing workflows: an ask whose answer key (prompt, input digests,
 * declared outputs, profile: src/runs/answer-key.ts) was answered in the same `Answers` is never launched
 * again — its recorded answer is checked again instead. Those runs are one execution from start to close
 * (their stops wait inside it), so the answers, in its memory and rebuilt by replay, span the run. A
 * sweep's run spans many executions: its answers live in its run directory (src/activities/review/sweep/answers.ts).
 */
import { answerKey, type AskIdentity } from '../../runs/answer-key.js';

/** One execution's answers by answer key. */
export class Answers<A> {
  private readonly byKey = new Map<string, A>();

  /** The answer an earlier ask with this key came to, if any. */
  get(key: string): A | undefined {
    return this.byKey.get(key);
  }

  /** Keeps the answer of a launch whose output was checked. */
  set(key: string, answer: A): void {
    this.byKey.set(key, answer);
  }

  /** Forgets an answer that was not accepted after all (a launch that wrote outside its outputs): the ask is launched again. */
  delete(key: string): void {
    this.byKey.delete(key);
  }

  get size(): number {
    return this.byKey.size;
  }
}

/** The two ways a keyed ask comes to its result: from the recorded answer, or from a launch that keeps its answer. */
export interface KeyedAsk<A, R> {
  /** Checks the recorded answer again (nothing is launched). */
  answered: (answer: A) => Promise<R>;
  /** Launches; `keep` records the answer under the ask's key once its output was checked. */
  launch: (keep: (answer: A) => void) => Promise<R>;
}

/**
 * Asks once per answer key: the recorded answer when the key was answered in these answers,
 * otherwise a launch.
 *
 * Not `async`, and hands back the launch's own promise: parallel asks issue their commands in the
 * order recorded histories hold, so this layer adds no step between a launch and its caller.
 */
export function keyedAsk<A, R>(answers: Answers<A>, identity: AskIdentity, ask: KeyedAsk<A, R>): Promise<R> {
  const key = answerKey(identity);
  const earlier = answers.get(key);
  if (earlier !== undefined) return ask.answered(earlier);
  return ask.launch((answer) => answers.set(key, answer));
}
