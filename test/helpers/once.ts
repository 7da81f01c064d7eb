// What a file's or a describe's beforeAll computes once, for its tests to read.
import { beforeAll } from '@jest/globals';

/**
 * Computes the value in beforeAll and returns a getter the tests read it through: one object of what
 * the set-up ran, in place of a `let` for each of its parts. Reading it outside a test (or after the
 * set-up failed) throws.
 */
export function computedOnce<T>(compute: () => Promise<T>, timeoutMs?: number): () => T {
  let value: { done: T } | undefined;
  beforeAll(async () => {
    value = { done: await compute() };
  }, timeoutMs);
  return () => {
    if (!value) throw new Error('the set-up has not run (or failed): read its value inside a test');
    return value.done;
  };
}
