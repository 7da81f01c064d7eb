/** A sweep unit's inputs as the checkout holds them now, and the failure for a request the sweep cannot carry out. */
import { ApplicationFailure } from '@temporalio/common';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadCriterion } from '../../../review/criteria.js';
import { criterionHash, hashParts, noteParts } from '../../../review/hash.js';
import type { SweepUnit } from '../../../review/sweep-types.js';

/** A request the sweep cannot carry out as asked: bad input, never retried. */
export function badInput(message: string): ApplicationFailure {
  return ApplicationFailure.create({ type: 'bad-sweep-input', nonRetryable: true, message });
}

export interface InputsNow {
  noteText: string;
  criteria: Map<string, { text: string; hashes: { note: string; criterion: string } }>;
}

/**
 * Reads a unit's note and criteria as they stand and hashes them (the note parsed once, hashed under
 * each criterion's watches); undefined for a criterion that is gone or no longer a criterion.
 */
export async function inputsNow(checkout: string, unit: SweepUnit): Promise<InputsNow | undefined> {
  const noteText = await readFile(join(checkout, unit.note), 'utf8').catch(() => undefined);
  if (noteText === undefined) return undefined;
  const parts = noteParts(noteText, unit.note);
  if (!parts.ok) throw badInput(`note ${unit.note} cannot be hashed: ${parts.findings.map((finding) => finding.message).join('; ')}`);
  const criteria: InputsNow['criteria'] = new Map();
  for (const criterion of unit.criteria) {
    const text = await readFile(join(checkout, criterion.path), 'utf8').catch(() => undefined);
    const loaded = await loadCriterion(checkout, criterion.id);
    if (text === undefined || !loaded.ok) continue;
    criteria.set(criterion.id, { text, hashes: { note: hashParts(parts.parts, loaded.criterion.watches), criterion: criterionHash(text) } });
  }
  return { noteText, criteria };
}
