/**
 * The checkout guard's records: a snapshot of the checkout's state (HEAD and every path Git reports
 * as modified or untracked, with the SHA-256 of its bytes), and which paths differ between two
 * snapshots. Review state under kb/reports/state/review/ is code's own and never counts.
 */

export interface GuardSnapshot {
  head: string | null;
  /** Checkout-relative path → `<XY status>:<sha256 | absent>`. */
  entries: Record<string, string>;
}

/** Paths below these prefixes are written by code (results, packets, run directories) and never reported. */
export const GUARD_EXCLUDED = ['kb/reports/state/review/'] as const;

export function guardExcluded(file: string): boolean {
  return GUARD_EXCLUDED.some((prefix) => file.startsWith(prefix));
}

/** The paths whose state differs between two snapshots, plus the paths commits between their HEADs touched. */
export function changedPaths(base: GuardSnapshot, now: GuardSnapshot, committed: readonly string[] = []): string[] {
  const changed = new Set<string>();
  for (const file of new Set([...Object.keys(base.entries), ...Object.keys(now.entries)])) {
    if (base.entries[file] !== now.entries[file]) changed.add(file);
  }
  for (const file of committed) if (!guardExcluded(file)) changed.add(file);
  return [...changed].sort();
}

/**
 * The publications' ledger: every file an editing run's sanctioned publication writes outside review
 * state, with the bytes it writes, appended before the write. Under review state, so it never counts itself.
 */
export const SANCTIONED_WRITES = 'kb/reports/state/review/publications.jsonl';

/** One sanctioned write: the checkout-relative path, the SHA-256 of the bytes written, the run that wrote it. */
export interface SanctionedWrite {
  path: string;
  sha256: string;
  run: string;
}

/**
 * The changed paths a run's guard reports, less those another run's sanctioned publication wrote: a path
 * whose bytes now are exactly what a publication recorded, unless the path is one of this run's own
 * inputs (its note changed under it by another run stays a change it must not go past).
 */
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
