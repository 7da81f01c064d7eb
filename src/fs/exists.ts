/** Whether a path names anything on disk — a file, a directory — as `stat` answers it; any failure is "no". */
import { statSync } from 'node:fs';
import { stat } from 'node:fs/promises';

export function pathExists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}

/** The same, answered at once, for synchronous callers (finding a checkout, checking a path's bounds). */
export function pathExistsSync(file: string): boolean {
  try {
    statSync(file);
    return true;
  } catch {
    return false;
  }
}
