/**
 * A sweep unit's ask identity: the one place that says which parts of a captured unit name its ask.
 * Both ways a unit is asked derive from it — the live ask's answer key (a gate batch's `Answers`,
 * src/workflows/sweep-unit.ts) and a provider batch request's `custom_id` (the submit activity) —
 * so a live answer and a batch answer of the same unit can never be told apart by key, nor two
 * different asks share one.
 *
 * PURE MODULE: no Node built-ins; workflows import it (the activity hands in its digest).
 */
import type { BatchRequestRef } from '../harness/batches/batch-contract.js';
import { answerKey, type AskIdentity } from '../runs/answer-key.js';
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

/** A unit's provider-batch request as the workflow hands it to the batch activities: what the activity rebuilds the unit's identity from (the prompt it reads from `dir`). */
export function batchRequest(unit: string, captured: UnitCapture & Pick<CapturedUnit, 'dir'>, launchId: string): BatchRequestRef {
  return { unit, dir: captured.dir, launchId, hashes: captured.hashes, outputs: captured.outputs };
}

/**
 * A request's `custom_id`: the digest of the unit's answer key (its `unitIdentity`) and the submission
 * round, `[a-zA-Z0-9_-]{1,64}` as Anthropic requires; `sha256` is the caller's, since workflow code cannot hash.
 */
export function requestCustomId(
  request: Pick<BatchRequestRef, 'hashes' | 'outputs'>,
  prompt: string,
  profile: string,
  round: number,
  sha256: (text: string) => string,
): string {
  return `cp-${sha256(answerKey(unitIdentity({ prompt, hashes: request.hashes, outputs: request.outputs }, profile))).slice(0, 48)}-${round}`;
}
