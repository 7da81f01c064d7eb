/**
 * Path-valued fields of the KB (`type:`, `schema:`, a layout's member type), resolved without loading
 * the schema validator: review status resolves every note's type and needs nothing else of the registry.
 */
import path from 'node:path';

export type PathResolution = { readonly ok: true; readonly path: string; readonly absolute: string } | { readonly ok: false; readonly reason: string };

/**
 * Resolves a path-valued field (`type:`, `schema:`, a layout's member type) the way
 * the KB writes them: relative to the citing file's folder when it starts with `./`
 * or `../`, otherwise relative to the repository root; never outside the repository.
 */
export function resolveKbPath(value: unknown, fromFile: string, repoRoot: string): PathResolution {
  if (typeof value !== 'string' || value.trim() === '') return { ok: false, reason: `must be a path string, found ${showValue(value)}` };
  const written = value.trim();
  if (/^[a-z][a-z0-9+.-]*:/i.test(written)) return { ok: false, reason: `\`${written}\` is a URL; a path inside the repository is expected` };
  if (path.posix.isAbsolute(written) || path.isAbsolute(written)) {
    return { ok: false, reason: `\`${written}\` is absolute; write it relative to the repository root (kb/…) or to this file (./…)` };
  }
  const relative =
    written.startsWith('./') || written.startsWith('../') ? path.posix.join(path.posix.dirname(toPosix(fromFile)), written) : path.posix.normalize(written);
  if (relative === '..' || relative.startsWith('../')) return { ok: false, reason: `\`${written}\` resolves outside the repository` };
  return { ok: true, path: relative, absolute: path.join(repoRoot, ...relative.split('/')) };
}

/** Renders a value short and JSON-quoted, so a message shows exactly what was found without flooding the line. */
export function showValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 80 ? `${text.slice(0, 77)}…` : text;
}

export function toPosix(file: string): string {
  return file.split(path.sep).join('/');
}

/** `file` relative to `root` in POSIX form (`''` for `root` itself), or undefined when it lies outside `root`. */
export function relativeInside(root: string, file: string): string | undefined {
  const relative = path.relative(root, file);
  return relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative) ? undefined : toPosix(relative);
}
