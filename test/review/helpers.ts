import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeResultFile, type ResultRecord } from '../../src/review/result-file.js';
import type { PairStatus } from '../../src/review/status.js';

/** The project root, found from this file so tests run from any clone location. */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The vendored shared corpus (read-only: tests copy it). */
export const corpusFixture = path.join(repoRoot, 'test/fixtures/corpus/commonplace-kb');

/** The small review KB: 7 gates × 3 notes, 17 applicable pairs (see its README). */
export const miniFixture = path.join(repoRoot, 'test/fixtures/review/mini');

export { copyToTemp, makeTemp, removeTemps } from '../helpers/kb.js';

/** A result record for a pair as it stands now, as an accepted review would write it. */
export function recordFor(pair: PairStatus, overrides: Partial<ResultRecord> = {}): ResultRecord {
  return {
    note: pair.note,
    criterion: pair.criterion,
    noteSha256: pair.noteSha256,
    criterionSha256: pair.criterionSha256,
    outcome: pair.reportCriterion ? 'report' : 'pass',
    profile: 'fake',
    model: 'fake-model',
    run: 'gates/2026-11-10-test-01',
    launch: `gates/2026-11-10-test-01/${pair.criterion}/1`,
    body: `Reviewed ${pair.note} against ${pair.criterion}.\n\nResult: ${pair.reportCriterion ? 'report' : 'pass'}\n`,
    ...overrides,
  };
}

/** Writes a result for each pair through the real writer (fsync off: a temporary tree). */
export async function writeResults(root: string, pairs: readonly PairStatus[]): Promise<void> {
  for (const pair of pairs) await writeResultFile(root, recordFor(pair), { fsync: false });
}

/** Rewrites a repository-relative file through a function of its text. */
export async function edit(root: string, file: string, change: (text: string) => string): Promise<void> {
  const absolute = path.join(root, file);
  const before = await readFile(absolute, 'utf8');
  const after = change(before);
  if (after === before) throw new Error(`edit of ${file} changed nothing: the test's replacement did not match`);
  await writeFile(absolute, after);
}
