/** The checkout guard's snapshots. Review state under kb/reports/state/review/ is code's own and never counts. */

export interface GuardSnapshot {
  head: string | null;
  /** Checkout-relative path → `<XY status>:<sha256 | absent>`. */
  entries: Record<string, string>;
}

const GUARD_EXCLUDED = ['kb/reports/state/review/'] as const;

export function guardExcluded(file: string): boolean {
  return GUARD_EXCLUDED.some((prefix) => file.startsWith(prefix));
}

/** Plus the paths commits between their HEADs touched. */
export function changedPaths(base: GuardSnapshot, now: GuardSnapshot, committed: readonly string[] = []): string[] {
  const changed = new Set<string>();
  for (const file of new Set([...Object.keys(base.entries), ...Object.keys(now.entries)])) {
    if (base.entries[file] !== now.entries[file]) changed.add(file);
  }
  for (const file of committed) if (!guardExcluded(file)) changed.add(file);
  return [...changed].sort();
}

/** Every file a sanctioned publication writes outside review state, appended before the write. */
export const SANCTIONED_WRITES = 'kb/reports/state/review/publications.jsonl';

export interface SanctionedWrite {
  path: string;
  sha256: string;
  run: string;
}

/** Less the paths another run's publication wrote with exactly these bytes, unless one of this run's own inputs. */
export function unsanctioned(
  changed: readonly string[],
  now: GuardSnapshot,
  sanctioned: readonly SanctionedWrite[],
  own: { run: string; inputs: readonly string[] },
): string[] {
  return changed.filter((file) => {
    if (own.inputs.includes(file)) return true;
    const bytes = now.entries[file]?.split(':')[1];
    return !sanctioned.some((write) => write.path === file && write.run !== own.run && write.sha256 === bytes);
  });
}
