/** Machine-local state (`.commonplace/`, `kb/reports/state/`) is never committed: the first command adds it to Git's `info/exclude` and says so. */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../fs/atomic.js';
import { runGit } from '../fs/git.js';

/** The machine-local directories, relative to the checkout root. */
export const MACHINE_LOCAL_DIRS = ['.commonplace', 'kb/reports/state'] as const;

const MARK = '# machine-local state of commonplace (run state, review results): never committed';

/** Adds to `info/exclude` what no ignore rule covers; returns the file and the entries added (none when ignored already or not a Git repository). */
export async function ignoreMachineLocal(root: string): Promise<{ file: string; added: string[] } | undefined> {
  const located = await runGit(root, ['rev-parse', '--git-path', 'info/exclude']);
  if (located.exitCode !== 0 || located.stdout === '') return undefined;
  const file = path.resolve(root, located.stdout);
  const added: string[] = [];
  for (const dir of MACHINE_LOCAL_DIRS) {
    // A path inside the directory: ignored when a rule covers the directory or everything below it.
    const probe = await runGit(root, ['check-ignore', '-q', '--no-index', `${dir}/.probe`]);
    if (probe.exitCode !== 0) added.push(`/${dir}/`);
  }
  if (added.length === 0) return { file, added };
  const existing = await readFile(file, 'utf8').catch(() => '');
  const lines = [...(existing === '' || existing.endsWith('\n') ? [] : ['']), ...(existing.includes(MARK) ? [] : [MARK]), ...added];
  await writeFileAtomic(file, `${existing}${lines.join('\n')}\n`);
  return { file, added };
}
