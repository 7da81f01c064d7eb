/**
 * Installs the shipped method (`methods/agentic-analysis/kb/…`) into a checkout: a file with other bytes is someone's edit, refused unless
 * forced. Nothing is committed: the operator reviews and commits it, since `prepare` runs only from a clean checkout.
 */
import { lstat, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../../fs/atomic.js';
import { packageRoot } from '../../paths.js';

export const methodSource = (): string => path.join(packageRoot(), 'methods', 'agentic-analysis');

interface InstallOptions {
  readonly force?: boolean;
  /** The shipped method by default. */
  readonly from?: string;
}

export interface InstallReport {
  readonly checkout: string;
  readonly from: string;
  /** Missing before. */
  readonly written: readonly string[];
  /** Only with `force`. */
  readonly replaced: readonly string[];
  readonly unchanged: readonly string[];
  /** What the checkout lacks for the method's own files to validate (not to run it). */
  readonly warnings: readonly string[];
}

export class InstallError extends Error {
  override name = 'InstallError';
  constructor(
    message: string,
    readonly conflicts: readonly string[] = [],
  ) {
    super(message);
  }
}

const toPosix = (file: string) => file.split(path.sep).join('/');

async function kind(file: string): Promise<'file' | 'other' | 'missing'> {
  try {
    return (await lstat(file)).isFile() ? 'file' : 'other';
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return 'missing';
    throw error;
  }
}

export async function installMethod(checkout: string, options: InstallOptions = {}): Promise<InstallReport> {
  const root = path.resolve(checkout);
  const from = path.resolve(options.from ?? methodSource());
  if ((await kind(path.join(root, 'kb'))) === 'missing') throw new InstallError(`${root} holds no kb/ directory; name the KB checkout (--kb DIR)`);
  const entries = await readdir(path.join(from, 'kb'), { recursive: true, withFileTypes: true }).catch((error: unknown) => {
    throw new InstallError(`the method tree ${from} has no kb/ directory (${(error as Error).message})`);
  });
  const files = entries
    .filter((entry) => entry.isFile())
    .map((entry) => toPosix(path.relative(from, path.join(entry.parentPath, entry.name))))
    .sort();

  const missing: string[] = [];
  const differing: string[] = [];
  const unchanged: string[] = [];
  const notFiles: string[] = [];
  const bytes = new Map<string, Buffer>();
  for (const file of files) {
    const wanted = await readFile(path.join(from, ...file.split('/')));
    bytes.set(file, wanted);
    const target = path.join(root, ...file.split('/'));
    const found = await kind(target);
    if (found === 'missing') missing.push(file);
    else if (found === 'other') notFiles.push(file);
    else if ((await readFile(target)).equals(wanted)) unchanged.push(file);
    else differing.push(file);
  }
  if (notFiles.length > 0) {
    throw new InstallError(
      `${root} has something other than a regular file where the method puts a file; nothing was written:\n${notFiles.map((file) => `  ${file}`).join('\n')}`,
      notFiles,
    );
  }
  if (differing.length > 0 && options.force !== true) {
    throw new InstallError(
      `${differing.length} file${differing.length === 1 ? '' : 's'} of the method already exist${differing.length === 1 ? 's' : ''} in ${root} with other content; nothing was written:\n${differing.map((file) => `  ${file}`).join('\n')}\nkeep your edits (adapt the method in place), or pass --force to overwrite them with the shipped method`,
      differing,
    );
  }
  for (const file of [...missing, ...differing]) await writeFileAtomic(path.join(root, ...file.split('/')), bytes.get(file) as Buffer);

  const warnings: string[] = [];
  if ((await kind(path.join(root, 'kb', 'types', 'type-spec.md'))) !== 'file') {
    warnings.push(
      "kb/types/type-spec.md is missing: the method's type specs name it as their type, so `commonplace validate` reports them until the KB has one (runs do not need it)",
    );
  }
  return { checkout: root, from, written: missing, replaced: differing, unchanged, warnings };
}
