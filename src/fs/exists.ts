/** Whether a path names anything on disk — a file, a directory — as `stat` answers it; any failure is "no". */
import { statSync } from 'node:fs';
import { stat } from 'node:fs/promises';

export function pathExists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}

export function pathExistsSync(file: string): boolean {
  try {
    statSync(file);
    return true;
  } catch {
    return false;
  }
}
