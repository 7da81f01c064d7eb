/** The source is frozen once into the capture directory, pinned by commit or digest; a retried acquisition checks its record instead of fetching again. */
import { randomUUID } from 'node:crypto';
import { cp, mkdir, readdir, readFile, readlink, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../../fs/atomic.js';
import type { FrozenSource } from '../../analysis/progress.js';
import type { RunParameters } from '../../analysis/parameters.js';
import { captureDir } from '../../analysis/run-dir.js';
import { git, GitError } from '../../fs/git.js';
import { sha256, sha256File } from '../../fs/digest.js';

/** `unavailable`: it could not be resolved or copied (`source-unavailable`); otherwise the frozen copy changed after acquisition. */
export class SourceError extends Error {
  override name = 'SourceError';
  constructor(
    message: string,
    readonly unavailable = true,
  ) {
    super(message);
  }
}

/** Every file's path and SHA-256 (a symlink's target), sorted; `.git` left out. */
export async function treeDigest(root: string): Promise<string> {
  const entries: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      if (entry.name === '.git') continue;
      const absolute = path.join(dir, entry.name);
      const relative = path.relative(root, absolute).split(path.sep).join('/');
      if (entry.isDirectory()) await walk(absolute);
      else if (entry.isSymbolicLink()) entries.push(`${relative}\0link:${await readlink(absolute)}`);
      else if (entry.isFile()) entries.push(`${relative}\0${await sha256File(absolute)}`);
    }
  };
  await walk(root);
  return sha256(entries.sort().join('\n'));
}

const recordFile = (runDir: string) => path.join(captureDir(runDir), 'source.json');

async function verify(record: FrozenSource): Promise<boolean> {
  if (record.kind === 'git') return (await git(record.path, ['rev-parse', 'HEAD']).catch(() => '')) === record.revision;
  if (record.kind === 'bundle') return (await sha256File(record.path).catch(() => sha256(''))) === record.digest;
  return (await treeDigest(record.path).catch(() => '')) === record.digest;
}

export async function freezeSource(parameters: RunParameters, runDir: string, beat: () => void = () => {}): Promise<FrozenSource> {
  const existing = await readFile(recordFile(runDir), 'utf8')
    .then((text) => JSON.parse(text) as FrozenSource)
    .catch(() => undefined);
  if (existing) {
    if (await verify(existing)) return existing;
    throw new SourceError(`the frozen source in ${existing.path} no longer matches its record (${existing.identity}); it was changed after acquisition`, false);
  }
  const { kind, location } = parameters.source;
  const capture = captureDir(runDir);
  await mkdir(capture, { recursive: true });
  const partial = path.join(capture, `.partial-${randomUUID()}`);
  try {
    let record: FrozenSource;
    if (kind === 'git') {
      const target = path.join(capture, 'source');
      await git(capture, ['clone', '--quiet', '--no-checkout', location, partial]);
      beat();
      const revision = parameters.source.revision ?? 'HEAD';
      const commit = await git(partial, ['rev-parse', '--verify', `${revision}^{commit}`]).catch(() => {
        throw new SourceError(`source ${location} has no revision ${revision}`);
      });
      await git(partial, ['-c', 'advice.detachedHead=false', 'checkout', '--quiet', '--detach', commit]);
      await rm(target, { recursive: true, force: true });
      await rename(partial, target);
      record = { kind, location, identity: `git:${location}@${commit}`, digest: commit, revision: commit, path: target, captureDir: capture };
    } else if (kind === 'bundle') {
      const target = path.join(capture, path.basename(location));
      const bytes = await readFile(location).catch((error: NodeJS.ErrnoException) => {
        throw new SourceError(`source bundle ${location} cannot be read: ${error.code === 'ENOENT' ? 'no such file' : error.message}`);
      });
      const digest = sha256(bytes);
      await writeFileAtomic(target, bytes);
      record = { kind, location, identity: `bundle:sha256:${digest}`, digest, path: target, captureDir: capture };
    } else {
      const target = path.join(capture, 'source');
      if (
        !(await stat(location).then(
          (info) => info.isDirectory(),
          () => false,
        ))
      )
        throw new SourceError(`source directory ${location} does not exist`);
      await cp(location, partial, { recursive: true, filter: (from) => path.basename(from) !== '.git' });
      beat();
      const digest = await treeDigest(partial);
      await rm(target, { recursive: true, force: true });
      await rename(partial, target);
      record = { kind, location, identity: `directory:sha256:${digest}`, digest, path: target, captureDir: capture };
    }
    await writeFileAtomic(recordFile(runDir), `${JSON.stringify(record, null, 2)}\n`);
    return record;
  } catch (error) {
    if (error instanceof GitError) throw new SourceError(`source ${location} cannot be frozen: ${error.message}`);
    throw error;
  } finally {
    await rm(partial, { recursive: true, force: true });
  }
}
