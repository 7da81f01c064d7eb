/**
 * A sweep unit's ask identity, in one place: the run's answers and a provider batch's `custom_id` derive from it, so live
 * and batch answers of a unit share a key and two asks never do. Pure.
 */
import type { AskIdentity } from '../runs/answer-key.js';
import type { CapturedUnit } from './sweep-types.js';

/** The parts of a capture that name a unit's ask. */
export type UnitCapture = Pick<CapturedUnit, 'prompt' | 'hashes' | 'outputs'>;

/** A unit's ask identity under a profile: the prompt, each criterion's note and criterion hashes, the declared outputs; the one source of the live key and the batch `custom_id`. */
export function unitIdentity(captured: UnitCapture, profile: string): AskIdentity {
  const inputs = Object.fromEntries(
    Object.entries(captured.hashes).flatMap(([id, hash]) => [
      [`note ${id}`, hash.note],
      [id, hash.criterion],
    ]),
  );
  return { prompt: captured.prompt, inputs, outputs: captured.outputs, profile };
}

/** A request's `custom_id`: the unit's answer-key digest (its `unitIdentity`'s) and the submission round, `[a-zA-Z0-9_-]{1,64}` as Anthropic requires. */
export function requestCustomId(answer: string, round: number): string {
  return `cp-${answer.slice(0, 48)}-${round}`;
}
