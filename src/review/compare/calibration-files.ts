/** Calibration records on disk, judged stale against the criterion's hash and each profile's canonical definition now. */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { sha256 } from '../../fs/digest.js';
import { writeFileAtomic } from '../../fs/atomic.js';
import { loadProfiles, profilesSource } from '../../harness/load-profiles.js';
import type { Profile } from '../../harness/profiles.js';
import type { Finding } from '../../kb/findings.js';
import { loadCriterion } from '../criteria.js';
import { canonicalJson } from '../hash.js';
import { calibrationFileName, parseCalibrationRecord, staleness } from './calibration.js';
import { CALIBRATION_DIR, type KeptCalibrationRecord } from './types.js';

const calibrationRecordPath = (criterion: string): string => `${CALIBRATION_DIR}/${calibrationFileName(criterion)}`;

/** Its own routing key is left out: choosing a route is not asking one. */
export function profileHash(profile: Profile): string {
  const { calibratedRoutes: _routing, ...definition } = profile;
  return sha256(canonicalJson(definition));
}

export function profileHashes(checkout: string, file?: string): Record<string, string> {
  const profiles = loadProfiles(profilesSource({ checkout, ...(file !== undefined && { file }) }));
  return Object.fromEntries([...profiles.values()].map((profile) => [profile.name, profileHash(profile)]));
}

/** Undefined when it is gone or no longer a criterion. */
export async function criterionHashNow(checkout: string, criterion: string): Promise<string | undefined> {
  const loaded = await loadCriterion(checkout, criterion);
  return loaded.ok ? loaded.criterion.sha256 : undefined;
}

export type RecordRead =
  { state: 'absent' } | { state: 'invalid'; file: string; problems: string[] } | { state: 'read'; file: string; record: KeptCalibrationRecord };

/** Checked as `commonplace validate` checks it. */
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

export async function writeCalibrationRecord(checkout: string, record: KeptCalibrationRecord): Promise<string> {
  const file = calibrationRecordPath(record.criterion);
  await writeFileAtomic(path.join(checkout, ...file.split('/')), `${JSON.stringify(record, null, 2)}\n`);
  return file;
}

/** Why a kept record is stale now (empty: fresh). */
export async function recordStaleness(checkout: string, record: KeptCalibrationRecord, hashes: Record<string, string>): Promise<string[]> {
  return staleness(record, { criterionHash: await criterionHashNow(checkout, record.criterion), profileHashes: hashes });
}

/** `commonplace validate`'s calibration check: shape and file name; a stale record is a warning saying why. */
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
