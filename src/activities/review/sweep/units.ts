/** How a sweep's pairs become launch units: one per pair, or bundled per note and lens within a size cap. */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { sha256 } from '../../../fs/digest.js';
import type { PairStatus } from '../../../review/status.js';
import type { Grouping, SweepUnit, UnitCriterion } from '../../../review/sweep-types.js';

/** Stable, readable, short enough for a directory name. */
function unitKey(note: string, part: string): string {
  const digest = sha256(`${note}\0${part}`).slice(0, 10);
  const readable = `${note.replace(/^kb\//, '').replace(/\.md$/, '')}--${part}`.replace(/[^A-Za-z0-9._-]+/g, '_').slice(-80);
  return `${readable}-${digest}`;
}

/** Bytes of a bundle's note and criterion files, when type and collection criteria join it. */
export const BUNDLE_CAP_BYTES = 64 * 1024;

interface BundleSizes {
  /** 0 when unknown. */
  readonly bytes: (file: string) => number;
  readonly cap: number;
}

/** The lens a unit of a note's type and collection criteria is filed under when no gate bundle of the note can take them. */
export const NOTE_CRITERIA_LENS = 'note-criteria';

export type PlannedPair = Pick<PairStatus, 'note' | 'criterion' | 'criterionPath' | 'lens' | 'reportCriterion'>;

/** One unit per pair, or per note and lens; a note's type and collection criteria join its first bundle within the cap, else each other, else go alone. */
export function planUnits(pairs: readonly PlannedPair[], grouping: Grouping, sizes?: BundleSizes): SweepUnit[] {
  const units = new Map<string, SweepUnit>();
  const extras = new Map<string, UnitCriterion[]>();
  for (const pair of pairs) {
    const criterion = { id: pair.criterion, path: pair.criterionPath, report: pair.reportCriterion };
    if (grouping === 'bundle' && pair.lens === undefined && sizes !== undefined && !pair.reportCriterion) {
      extras.set(pair.note, [...(extras.get(pair.note) ?? []), criterion]);
      continue;
    }
    const lens = pair.lens ?? pair.criterion;
    const group = grouping === 'bundle' && pair.lens !== undefined ? lens : pair.criterion;
    const key = unitKey(pair.note, group);
    const unit = units.get(key);
    if (unit) unit.criteria.push(criterion);
    else units.set(key, { key, note: pair.note, lens, criteria: [criterion] });
  }
  if (sizes === undefined) return [...units.values()];
  const inputBytes = (note: string, criteria: readonly UnitCriterion[]) =>
    criteria.reduce((sum, criterion) => sum + sizes.bytes(criterion.path), sizes.bytes(note));
  for (const [note, criteria] of extras) {
    const host = [...units.values()].find((unit) => unit.note === note && inputBytes(note, [...unit.criteria, ...criteria]) <= sizes.cap);
    if (host) {
      host.criteria.push(...criteria);
    } else if (criteria.length > 1 && inputBytes(note, criteria) <= sizes.cap) {
      const key = unitKey(note, NOTE_CRITERIA_LENS);
      units.set(key, { key, note, lens: NOTE_CRITERIA_LENS, criteria });
    } else {
      for (const criterion of criteria) {
        const key = unitKey(note, criterion.id);
        units.set(key, { key, note, lens: criterion.id, criteria: [criterion] });
      }
    }
  }
  return [...units.values()];
}

export async function bundleSizes(checkout: string, pairs: readonly PlannedPair[]): Promise<BundleSizes> {
  const files = new Set<string>();
  for (const pair of pairs) files.add(pair.note).add(pair.criterionPath);
  const bytes = new Map<string, number>();
  await Promise.all([...files].map(async (file) => bytes.set(file, (await stat(join(checkout, file)).catch(() => undefined))?.size ?? 0)));
  return { bytes: (file) => bytes.get(file) ?? 0, cap: BUNDLE_CAP_BYTES };
}

/** By default a pair's criterion, a bundle's note. */
function sharedPrefixOf(unit: SweepUnit): string {
  const first = unit.cachePrefix ?? (unit.criteria.length > 1 ? 'note' : 'criteria');
  return first === 'note' ? `note\0${unit.note}` : `criteria\0${unit.criteria.map((criterion) => criterion.id).join('\0')}`;
}

/**
 * Each group sharing a prefix goes whole to the lane with the fewest units, and lanes are dealt out in turn: a group's units then follow
 * one another, each reading the prefix the one before wrote, instead of racing so that each writes it (bench/review-cost.ts).
 */
export function orderForCache(units: readonly SweepUnit[], concurrency = 1): SweepUnit[] {
  const groups = new Map<string, SweepUnit[]>();
  for (const unit of units) {
    const key = sharedPrefixOf(unit);
    groups.set(key, [...(groups.get(key) ?? []), unit]);
  }
  const lanes: SweepUnit[][] = Array.from({ length: Math.max(1, Math.min(concurrency, groups.size)) }, () => []);
  for (const group of groups.values()) {
    const lane = lanes.reduce((least, each) => (each.length < least.length ? each : least));
    lane.push(...group);
  }
  const ordered: SweepUnit[] = [];
  for (let index = 0; ordered.length < units.length; index++) for (const lane of lanes) if (index < lane.length) ordered.push(lane[index]!);
  return ordered;
}
