/**
 * Calibration records on disk (`kb/reports/calibration/<criterion file>.json`) and the definitions a
 * record is judged stale against: the criterion's hash now (the review freshness hash) and each
 * profile's canonical definition now.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { sha256 } from '../../fs/digest.js';
import { writeFileAtomic } from '../../fs/atomic.js';
import { loadProfiles, profilesSource } from '../../harness/load-profiles.js';
import type { Profile } from '../../harness/profiles.js';
import type { Finding } from '../../kb/findings.js';
import { loadCriterion } from '../criteria.js';
import { canonicalJson } from '../hash.js';
import { calibrationFileName, parseCalibrationRecord, staleness, type CurrentDefinitions } from './calibration.js';
import { CALIBRATION_DIR, type KeptCalibrationRecord } from './types.js';

/** A record's path relative to the checkout root. */
export const calibrationRecordPath = (criterion: string): string => `${CALIBRATION_DIR}/${calibrationFileName(criterion)}`;

/** A profile's definition hashed canonically; its own routing key is left out (choosing a route is not asking one). */
export function profileHash(profile: Profile): string {
  const { calibratedRoutes: _routing, ...definition } = profile;
  return sha256(canonicalJson(definition));
}

/** Every profile's hash in the profiles file that applies to the checkout (or the one named). */
export function profileHashes(checkout: string, file?: string): Record<string, string> {
  const profiles = loadProfiles(profilesSource({ checkout, ...(file !== undefined && { file }) }));
  return Object.fromEntries([...profiles.values()].map((profile) => [profile.name, profileHash(profile)]));
}

/** The criterion's hash as it stands, or undefined when it is gone or no longer a criterion. */
export async function criterionHashNow(checkout: string, criterion: string): Promise<string | undefined> {
  const loaded = await loadCriterion(checkout, criterion);
  return loaded.ok ? loaded.criterion.sha256 : undefined;
}

export type RecordRead =
  { state: 'absent' } | { state: 'invalid'; file: string; problems: string[] } | { state: 'read'; file: string; record: KeptCalibrationRecord };

/** The criterion's record, if kept, checked as `commonplace validate` checks it. */
export async function readCalibrationRecord(checkout: string, criterion: string): Promise<RecordRead> {
  const file = calibrationRecordPath(criterion);
  let text: string;
  try {
    text = await readFile(path.join(checkout, ...file.split('/')), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { state: 'absent' };
    return { state: 'invalid', file, problems: [(error as Error).message] };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { state: 'invalid', file, problems: [`not JSON: ${(error as Error).message}`] };
  }
  const parsed = parseCalibrationRecord(value, file);
  return parsed.ok ? { state: 'read', file, record: parsed.record } : { state: 'invalid', file, problems: parsed.problems };
}

/** Writes a record atomically; returns its path relative to the checkout. */
export async function writeCalibrationRecord(checkout: string, record: KeptCalibrationRecord): Promise<string> {
  const file = calibrationRecordPath(record.criterion);
  await writeFileAtomic(path.join(checkout, ...file.split('/')), `${JSON.stringify(record, null, 2)}\n`);
  return file;
}

/** The criterion and profiles as they are now, for {@link staleness}. */
export async function currentDefinitions(checkout: string, criterion: string, hashes: Record<string, string>): Promise<CurrentDefinitions> {
  return { criterionHash: await criterionHashNow(checkout, criterion), profileHashes: hashes };
}

/** Why a kept record is stale now (empty: fresh). */
export async function recordStaleness(checkout: string, record: KeptCalibrationRecord, hashes: Record<string, string>): Promise<string[]> {
  return staleness(record, await currentDefinitions(checkout, record.criterion, hashes));
}

/**
 * A calibration record checked against its shape (docs/schemas/calibration-record.v1.schema.json) and
 * its file name; a stale one (its criterion or a profile changed since) is a warning saying why.
 * `commonplace validate` hands it to `validateFiles` (kb/validate.ts) as its calibration check.
 */
export async function calibrationFindings(file: string, bytes: Uint8Array, repoRoot: string): Promise<Finding[]> {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder().decode(bytes));
  } catch (error) {
    return [{ file, rule: 'calibration-invalid', severity: 'fail', message: `a calibration record is JSON: ${(error as Error).message}` }];
  }
  const parsed = parseCalibrationRecord(value, file);
  if (!parsed.ok) return parsed.problems.map((problem) => ({ file, rule: 'calibration-invalid', severity: 'fail' as const, message: problem }));
  let hashes: Record<string, string>;
  try {
    hashes = profileHashes(repoRoot);
  } catch (error) {
    return [
      { file, rule: 'calibration-stale', severity: 'warn', message: `cannot tell whether the record is stale: ${(error as Error).message.split('\n')[0]}` },
    ];
  }
  const reasons = await recordStaleness(repoRoot, parsed.record, hashes);
  if (reasons.length === 0) return [];
  return [
    {
      file,
      rule: 'calibration-stale',
      severity: 'warn',
      message: `stale, so no sweep chooses a route by it: ${reasons.join('; ')}; compare again and keep the new run`,
    },
  ];
}
