/**
 * Machine-local state in a KB checkout: the checkout ID and run state under `.commonplace/`, and the
 * review state (result files, run directories, packets) under `kb/reports/state/`. It is never
 * committed: the first command that works on a checkout makes Git ignore it through the
 * repository's own `info/exclude` (never a tracked `.gitignore` change), and says what it added.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../fs/atomic.js';
import { runGit } from '../fs/git.js';

/** The machine-local directories, relative to the checkout root. */
export const MACHINE_LOCAL_DIRS = ['.commonplace', 'kb/reports/state'] as const;

const MARK = '# machine-local state of commonplace (run state, review results): never committed';

/**
 * Makes Git ignore the machine-local directories of a checkout, adding to `info/exclude` what no
 * ignore rule covers yet. Returns the exclude file and the entries added (none when all were
 * ignored already, or when the checkout is not a Git repository).
 */
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
