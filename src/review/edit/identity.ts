/** An editing run's identity carries the note text's hash: repeating the command continues the run, an edited note opens a new one. Pure. */
import { HASH_DIGITS } from '../../runs/workflow-ids.js';
import type { EditKind, EditOptions } from './types.js';

/** Kind, a readable slug of the note's path (a long one keeps its end and a digest), the hash; `-in-<namespace>` outside `default`. */
export function editRunId(kind: EditKind, note: string, textSha256: string, pathDigest: string, namespace = 'default'): string {
  let slug = note
    .replace(/^kb\//, '')
    .replace(/\.md$/, '')
    .replace(/[^A-Za-z0-9._-]+/g, '_');
  if (slug.length > 80) slug = `${slug.slice(-71)}_${pathDigest.slice(0, 8)}`;
  const where = namespace === 'default' ? '' : `-in-${namespace.replace(/[^A-Za-z0-9._-]+/g, '_')}`;
  return `${kind}-${slug}-${textSha256.slice(0, HASH_DIGITS)}${where}`;
}

/** One line each. */
export function optionsDifference(recorded: EditOptions, asked: EditOptions): string[] {
  const keys = [...new Set([...Object.keys(recorded), ...Object.keys(asked)])].sort();
  const differences: string[] = [];
  const show = (value: unknown) => (value === null || value === undefined ? 'none' : typeof value === 'string' ? JSON.stringify(value) : String(value));
  for (const key of keys) {
    const was = (recorded as unknown as Record<string, unknown>)[key];
    const now = (asked as unknown as Record<string, unknown>)[key];
    if ((was ?? null) !== (now ?? null)) differences.push(`${key}: the run has ${show(was)}, this command asks ${show(now)}`);
  }
  return differences;
}
