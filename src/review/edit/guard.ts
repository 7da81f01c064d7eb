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
