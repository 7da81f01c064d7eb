/**
 * Review state paths in a checkout (POSIX, repository-relative): a result is
 * `kb/reports/state/review/results/<note path under kb/, .md kept>/<criterion id>.md`, `.md` always appended so the
 * mapping reverses (the note path ends at the first `.md` segment). Pure: workflow code names result paths too.
 */

/** The results tree, relative to the checkout root. */
export const RESULTS_DIR = 'kb/reports/state/review/results';

/** The gate catalog: gates are `<lens>/<name>.md` under it. */
export const GATES_DIR = 'kb/instructions/review-gates';

/** The critique instruction, the report criterion. */
export const CRITIQUE_INSTRUCTION = 'kb/instructions/critique-note.md';

/** A problem with a note path or criterion ID, or undefined when it is well formed. */
export function notePathProblem(note: string): string | undefined {
  if (!note.startsWith('kb/')) return `note path \`${note}\` must be repository-relative and start with kb/`;
  if (!note.endsWith('.md')) return `note path \`${note}\` must end with .md`;
  const segments = note.split('/');
  if (segments.some(badSegment)) return `note path \`${note}\` has an empty, \`.\` or \`..\` segment, or a backslash`;
  if (segments.slice(0, -1).some((segment) => segment.endsWith('.md'))) return `note path \`${note}\` has a folder ending in .md`;
  if (note.startsWith(`${RESULTS_DIR}/`)) return `note path \`${note}\` is inside the results tree`;
  return undefined;
}

/** A problem with a criterion ID (a gate's `{lens}/{name}`, or a KB path ending .md), or undefined. */
export function criterionIdProblem(criterion: string): string | undefined {
  const segments = criterion.split('/');
  if (segments.some(badSegment)) return `criterion ID \`${criterion}\` has an empty, \`.\` or \`..\` segment, or a backslash`;
  if (isPathCriterion(criterion)) return undefined;
  if (segments.length !== 2 || criterion.endsWith('.md')) return `criterion ID \`${criterion}\` must be a gate ID \`{lens}/{name}\` or a KB path (kb/….md)`;
  return undefined;
}

/** Whether a criterion ID is a KB path (a type spec, a COLLECTION.md, an instruction) rather than a gate ID. */
export function isPathCriterion(criterion: string): boolean {
  return criterion.startsWith('kb/') && criterion.endsWith('.md');
}

/** The result file of a pair, so writers and status agree on one path per pair. */
export function resultPath(note: string, criterion: string): string {
  return `${RESULTS_DIR}/${note.slice('kb/'.length)}/${criterion}.md`;
}

/** The pair a result path names, or undefined when the path is not shaped like a result path. */
export function pairOfResultPath(path: string): { note: string; criterion: string } | undefined {
  if (!path.startsWith(`${RESULTS_DIR}/`) || !path.endsWith('.md')) return undefined;
  const segments = path.slice(RESULTS_DIR.length + 1).split('/');
  const noteEnd = segments.findIndex((segment) => segment.endsWith('.md'));
  if (noteEnd === -1 || noteEnd === segments.length - 1) return undefined;
  const note = `kb/${segments.slice(0, noteEnd + 1).join('/')}`;
  const criterionFile = segments.slice(noteEnd + 1).join('/');
  const criterion = criterionFile.slice(0, -'.md'.length);
  if (criterion === '' || notePathProblem(note) !== undefined || criterionIdProblem(criterion) !== undefined) return undefined;
  return { note, criterion };
}

/** The file of a gate in the catalog. */
export function gatePath(gateId: string): string {
  return `${GATES_DIR}/${gateId}.md`;
}

/** The file a criterion ID names: a gate's catalog file, or the path itself. */
export function criterionPath(criterion: string): string {
  return isPathCriterion(criterion) ? criterion : gatePath(criterion);
}

function badSegment(segment: string): boolean {
  return segment === '' || segment === '.' || segment === '..' || segment.includes('\\') || segment.includes('\u0000');
}
