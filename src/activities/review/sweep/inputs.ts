import { ApplicationFailure } from '@temporalio/common';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadCriterion } from '../../../review/criteria.js';
import { criterionHash, hashParts, noteParts } from '../../../review/hash.js';
import type { SweepUnit } from '../../../review/sweep-types.js';

/** Never retried. */
export function badInput(message: string): ApplicationFailure {
  return ApplicationFailure.create({ type: 'bad-sweep-input', nonRetryable: true, message });
}

export interface InputsNow {
  noteText: string;
  criteria: Map<string, { text: string; hashes: { note: string; criterion: string } }>;
}

/** Keyed by the text itself (a few hundred kept): a sweep reads each note under ~40 criteria twice a unit, and YAML parsing was most of it. */
const parsedNotes = new Map<string, ReturnType<typeof noteParts>>();
const loadedCriteria = new Map<string, Promise<Awaited<ReturnType<typeof loadCriterion>>>>();
const REMEMBERED = 256;

/** Synchronously, as `review status` reads its files: one call, not four thread-pool round trips. */
function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

function remembered<V>(cache: Map<string, V>, key: string, make: () => V): V {
  const known = cache.get(key);
  if (known !== undefined) return known;
  const value = make();
  if (cache.size >= REMEMBERED) cache.delete(cache.keys().next().value as string);
  cache.set(key, value);
  return value;
}

/** The note parsed once and hashed under each criterion's watches; undefined for a criterion that is gone or no longer a criterion. */
export async function inputsNow(checkout: string, unit: SweepUnit): Promise<InputsNow | undefined> {
  const noteText = readText(join(checkout, unit.note));
  if (noteText === undefined) return undefined;
  const parts = remembered(parsedNotes, `${checkout}\0${unit.note}\0${noteText}`, () => noteParts(noteText, unit.note));
  if (!parts.ok) throw badInput(`note ${unit.note} cannot be hashed: ${parts.findings.map((finding) => finding.message).join('; ')}`);
  const criteria: InputsNow['criteria'] = new Map();
  for (const criterion of unit.criteria) {
    const text = readText(join(checkout, criterion.path));
    if (text === undefined) continue;
    const loaded = await remembered(loadedCriteria, `${checkout}\0${criterion.id}\0${text}`, () => loadCriterion(checkout, criterion.id));
    if (!loaded.ok) continue;
    criteria.set(criterion.id, { text, hashes: { note: hashParts(parts.parts, loaded.criterion.watches), criterion: criterionHash(text) } });
  }
  return { noteText, criteria };
}
