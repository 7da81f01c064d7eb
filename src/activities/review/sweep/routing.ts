/** `calibrated-routes` at a sweep's start: the choices are kept in routing.json for `review inspect` and the operator. */
import { join } from 'node:path';
import { writeFileAtomic } from '../../../fs/atomic.js';
import type { Profile } from '../../../harness/profiles.js';
import { profileHash, readCalibrationRecord, recordStaleness } from '../../../review/compare/calibration-files.js';
import { chooseRoute, type RecordState, type RouteChoice } from '../../../review/compare/choose.js';
import type { Grouping } from '../../../review/sweep-types.js';

export interface SweepRouting {
  profile: string;
  reference: string;
  minKappa: number;
  choices: RouteChoice[];
}

export const routingFile = (runDir: string): string => join(runDir, 'routing.json');

/** Each criterion's route under the profile's `calibrated-routes`; undefined when the profile declares none. */
export async function routeCriteria(input: {
  checkout: string;
  profile: Profile;
  /** A run's added env is not part of a definition. */
  profiles: Map<string, Profile>;
  grouping: Grouping;
  criteria: readonly string[];
}): Promise<SweepRouting | undefined> {
  const routing = input.profile.calibratedRoutes;
  if (routing === undefined) return undefined;
  const hashes = Object.fromEntries([...input.profiles.values()].map((profile) => [profile.name, profileHash(profile)]));
  const choices: RouteChoice[] = [];
  for (const criterion of [...new Set(input.criteria)].sort()) {
    const read = await readCalibrationRecord(input.checkout, criterion);
    const record: RecordState = read.state === 'read' ? { ...read, stale: await recordStaleness(input.checkout, read.record, hashes) } : read;
    choices.push(chooseRoute({ criterion, profile: input.profile.name, grouping: input.grouping, batch: false, routing, record }));
  }
  return { profile: input.profile.name, reference: routing.reference, minKappa: routing.minKappa, choices };
}

/** Written before any unit is asked. */
export async function writeRouting(runDir: string, routing: SweepRouting): Promise<void> {
  await writeFileAtomic(routingFile(runDir), `${JSON.stringify(routing, null, 2)}\n`);
}

/** One line per criterion, as `review inspect` and the docs show them. */
export function routingLines(routing: SweepRouting): string[] {
  return routing.choices.map((choice) => `${choice.criterion}: ${choice.route} (${choice.basis === 'record' ? 'calibrated' : 'default'}) — ${choice.why}`);
}
