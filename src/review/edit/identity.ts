/**
 * Run identity of the editing workflows: the workflow ID (`editWorkflowId` in
 * src/runs/workflow-ids.ts) is derived from the workflow kind, the checkout's ID, the note's path and
 * the hash of the note's text, so checkouts sharing a namespace never collide, repeating the command
 * continues the run and an edited note opens a new one; the run ID below carries the same hash. Pure
 * string code.
 */
import { HASH_DIGITS } from '../../runs/workflow-ids.js';
import type { EditKind, EditOptions } from './types.js';

/**
 * The run ID (its directory under kb/reports/state/review/runs/): kind, a readable slug of the note's
 * path below kb/, and the hash; long paths keep their end and a digest of the whole path. Outside the
 * `default` namespace it ends `-in-<namespace>`, so two namespaces' runs over one note text never
 * share a run directory.
 */
export function editRunId(kind: EditKind, note: string, textSha256: string, pathDigest: string, namespace = 'default'): string {
  let slug = note
    .replace(/^kb\//, '')
    .replace(/\.md$/, '')
    .replace(/[^A-Za-z0-9._-]+/g, '_');
  if (slug.length > 80) slug = `${slug.slice(-71)}_${pathDigest.slice(0, 8)}`;
  const where = namespace === 'default' ? '' : `-in-${namespace.replace(/[^A-Za-z0-9._-]+/g, '_')}`;
  return `${kind}-${slug}-${textSha256.slice(0, HASH_DIGITS)}${where}`;
}

/** What differs between the options a run recorded and the options a repeat asks for, one line each. */
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
