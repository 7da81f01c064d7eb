/**
 * Publication: copies an assembled artifact's members to the layout's destination in the run's
 * worktree and commits them on the run branch, which `integrate` later merges into main. It runs under
 * a lock (one publication per checkout at a time), refuses before writing anything when the destination
 * is not the run's to write (`conflict`), and journals every step, so a retried publication finishes what
 * an earlier try began and never writes twice; when the journal and the worktree cannot say what an
 * earlier try did, it writes nothing more and answers `uncertain`, naming the journal.
 */
import { mkdir, open, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { removeAtomicLeftovers, writeFileAtomic } from '../../fs/atomic.js';
import { destinationFor, type Layout } from '../../kb/layouts.js';
import { PUBLISHED_MANIFEST } from '../../kb/published.js';
import type { Manifest, PublicationRecord } from '../../analysis/manifest.js';
import type { RunParameters } from '../../analysis/parameters.js';
import { manifestFile, publicationJournalFile, publicationLockFile } from '../../analysis/run-dir.js';
import { systemSlug } from '../../analysis/run-id.js';
import { git, gitOk } from '../../fs/git.js';
import { sha256File } from '../../fs/digest.js';
import { get, put } from '../../fs/store.js';
import { namedPaths } from '../../runs/stop.js';
import { noFaults, type FaultPoints } from '../faults.js';

export interface PublishRequest {
  runDir: string;
  parameters: RunParameters;
  layout: Layout;
  /** The assembled manifest (status `assembled`), as the workflow holds it. */
  manifest: Manifest;
  /** Called between steps, so a long wait for the lock or a slow disk still heartbeats. */
  heartbeat?: () => void;
  /** How long to wait for another publication's lock before giving up (this try fails and is retried). */
  lockWaitMs?: number;
  /** Where a test makes the publication fail (after each journal entry, or before a file's rename); none in production. */
  faults?: FaultPoints;
}

export type PublicationOutcome =
  | { status: 'published'; publication: PublicationRecord; files: string[]; manifest: Manifest }
  | { status: 'conflict'; destination: string; reason: string; paths: string[]; evidence: string }
  | { status: 'uncertain'; destination: string; reason: string; journal: string };

export class PublicationLockedError extends Error {
  override name = 'PublicationLockedError';
}

type JournalEntry =
  | { event: 'begin'; publication: string; destination: string; base: string; files: Record<string, string>; at: string }
  | { event: 'writing'; path: string; sha256: string; at: string }
  | { event: 'written'; path: string; sha256: string; at: string }
  | { event: 'committing'; at: string }
  | { event: 'committed'; commit: string; at: string }
  | { event: 'done'; commit: string; at: string };

const EVENTS = new Set(['begin', 'writing', 'written', 'committing', 'committed', 'done']);

/** The journal's entries, or the reason it cannot be read (a torn or foreign line is an unknown outcome). */
async function readJournal(file: string): Promise<{ ok: true; entries: JournalEntry[] } | { ok: false; reason: string }> {
  const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return '';
    throw error;
  });
  const entries: JournalEntry[] = [];
  const lines = text.split('\n');
  for (const [index, line] of lines.entries()) {
    if (line === '' && index === lines.length - 1) break;
    let entry: unknown;
    try {
      entry = JSON.parse(line);
    } catch {
      return { ok: false, reason: `line ${index + 1} of the journal is not a journal entry (a try may have died writing it)` };
    }
    if (typeof entry !== 'object' || entry === null || !EVENTS.has((entry as { event?: string }).event ?? '')) {
      return { ok: false, reason: `line ${index + 1} of the journal is not a journal entry` };
    }
    entries.push(entry as JournalEntry);
  }
  return { ok: true, entries };
}

/** Appends one entry and flushes it to disk before the step it announces is taken. */
async function appendEntry(file: string, entry: JournalEntry, faults: FaultPoints): Promise<void> {
  const handle = await open(file, 'a');
  try {
    await handle.writeFile(`${JSON.stringify(entry)}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await faults.at('publication-journaled', entry.event);
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Holds the checkout's publication lock while `work` runs. A lock left by a dead process on this
 * host is taken over; one held by a live process (or another host) is waited for, then refused.
 */
async function withLock<T>(file: string, owner: string, waitMs: number, heartbeat: () => void, work: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + waitMs;
  const me = { pid: process.pid, host: os.hostname(), owner, since: new Date().toISOString() };
  for (;;) {
    try {
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, `${JSON.stringify(me)}\n`, { flag: 'wx' });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const held = await readFile(file, 'utf8')
        .then((text) => JSON.parse(text) as typeof me)
        .catch(() => undefined);
      if (held !== undefined && held.host === me.host && !processAlive(held.pid)) {
        await rm(file, { force: true });
        continue;
      }
      if (Date.now() > deadline) {
        throw new PublicationLockedError(
          `the publication lock ${file} is held${held ? ` by ${held.owner} (pid ${held.pid} on ${held.host} since ${held.since})` : ''}; another publication is under way`,
        );
      }
      heartbeat();
      await new Promise((done) => setTimeout(done, 250));
    }
  }
  try {
    return await work();
  } finally {
    await rm(file, { force: true });
  }
}

/** Every file under a directory, repository-relative; none when it does not exist. */
async function filesUnder(root: string, dir: string): Promise<string[]> {
  const entries = await readdir(path.join(root, ...dir.split('/')), { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .filter((entry) => !entry.isDirectory())
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'))
    .sort();
}

async function digestOf(file: string): Promise<string | null> {
  return sha256File(file).catch(() => null);
}

/** The published manifest: the exact files (relative to the destination) and the provenance of each member. */
export function publishedManifest(parameters: RunParameters, manifest: Manifest): string {
  const files: Record<string, string> = {};
  for (const member of manifest.members) files[member.path] = member.sha256;
  const published = {
    run: manifest.run,
    system: manifest.system,
    disposition: manifest.disposition ?? 'published',
    method: parameters.method,
    source: manifest.source ?? null,
    preparationCommit: manifest.preparationCommit,
    plan: manifest.plan,
    planSha256: manifest.planSha256,
    layout: manifest.layout,
    layoutSha256: manifest.layoutSha256,
    files,
    members: manifest.members.map((member) => ({
      role: member.role,
      path: member.path,
      sha256: member.sha256,
      size: member.size,
      verified: member.verified,
      profile: member.profile,
      model: member.model,
      modelSource: member.modelSource,
      launch: member.launch,
    })),
  };
  return `${JSON.stringify(published, null, 2)}\n`;
}

/** Where this run's artifact goes: the layout's destination with the run's values. */
export function destinationOf(layout: Layout, parameters: RunParameters): string | undefined {
  if (layout.destination === undefined) return undefined;
  return destinationFor(layout.destination, { system: systemSlug(parameters.system), run: parameters.run });
}

/** What stops a publication before anything is written: files already at the destination, or a destination the checkout's branch changed since preparing. */
async function conflicts(parameters: RunParameters, destination: string): Promise<{ reason: string; paths: string[]; evidence: string } | undefined> {
  const present = await filesUnder(parameters.worktree, destination);
  if (present.length > 0) {
    return {
      reason: `the destination ${destination} already holds ${present.length} file(s) this run did not write, and publication never overwrites what it does not own: ${namedPaths(present, 10)}`,
      paths: present,
      evidence: path.join(parameters.worktree, ...destination.split('/')),
    };
  }
  const head = await git(parameters.checkout, ['rev-parse', 'HEAD']).catch(() => undefined);
  if (head !== undefined && head !== parameters.preparationCommit) {
    const changed = (await git(parameters.checkout, ['diff', '--name-only', '-z', parameters.preparationCommit, head, '--', destination]))
      .split('\0')
      .filter(Boolean);
    if (changed.length > 0) {
      return {
        reason: `the checkout's branch changed the destination ${destination} since the run was prepared (${parameters.preparationCommit.slice(0, 12)}): ${namedPaths(changed, 10)}; publishing would collide with it`,
        paths: changed,
        evidence: `git -C ${parameters.checkout} log --stat ${parameters.preparationCommit.slice(0, 12)}..HEAD -- ${destination}`,
      };
    }
  }
  return undefined;
}

async function commitIdentity(worktree: string): Promise<string[]> {
  const named = await gitOk(worktree, ['config', 'user.name']);
  const mailed = await gitOk(worktree, ['config', 'user.email']);
  return [...(named ? [] : ['-c', 'user.name=commonplace']), ...(mailed ? [] : ['-c', 'user.email=commonplace@localhost'])];
}

/** What a publication's steps share: its request, where it writes, each file's digest in the order written, and its journal. */
interface Publishing {
  readonly request: PublishRequest;
  readonly destination: string;
  readonly targets: Record<string, string>;
  readonly order: string[];
  readonly heartbeat: () => void;
  readonly faults: FaultPoints;
  readonly log: (entry: JournalEntry) => Promise<void>;
}

const now = () => new Date().toISOString();

/**
 * Publishes the assembled artifact: checks, copies under the journal, commits on the run branch,
 * and marks the run's manifest `published`. Safe to call again after any interruption.
 */
export async function publishRun(request: PublishRequest): Promise<PublicationOutcome> {
  const { runDir, parameters, layout, manifest } = request;
  const destination = destinationOf(layout, parameters);
  if (destination === undefined) throw new Error(`the layout ${layout.file} declares no destination, so its artifacts cannot be published`);
  const journal = publicationJournalFile(runDir);
  const uncertain = (reason: string): PublicationOutcome => ({ status: 'uncertain', destination, reason, journal });
  const worktree = parameters.worktree;

  // What this publication writes: each member from the store, then the published manifest, last.
  const manifestDigest = await put(runDir, publishedManifest(parameters, manifest));
  const targets: Record<string, string> = {};
  for (const member of manifest.members) targets[`${destination}/${member.path}`] = member.sha256;
  const manifestPath = `${destination}/${PUBLISHED_MANIFEST}`;
  targets[manifestPath] = manifestDigest;
  const memberFiles = Object.keys(targets).filter((file) => file !== manifestPath);
  const order = [...memberFiles.sort(), manifestPath];
  const faults = request.faults ?? noFaults;
  const log = (entry: JournalEntry) => appendEntry(journal, entry, faults);
  const publishing: Publishing = { request, destination, targets, order, heartbeat: request.heartbeat ?? (() => undefined), faults, log };

  return withLock(
    publicationLockFile(parameters.checkout),
    `publication of ${parameters.run}`,
    request.lockWaitMs ?? 120_000,
    publishing.heartbeat,
    async () => {
      const read = await readJournal(journal);
      if (!read.ok) return uncertain(read.reason);
      const entries = read.entries;
      const find = <E extends JournalEntry['event']>(event: E) => entries.find((entry): entry is Extract<JournalEntry, { event: E }> => entry.event === event);
      let begin = find('begin');
      if (begin !== undefined && begin.publication !== manifestDigest) {
        return uncertain(
          `the journal records a publication of other bytes (manifest ${begin.publication.slice(0, 12)}, begun ${begin.at}) than this run's assembled artifact (${manifestDigest.slice(0, 12)})`,
        );
      }
      if (begin === undefined && entries.length > 0) return uncertain(`the journal has ${entries.length} entries but no begin`);
      const done = find('done');
      if (begin !== undefined && done !== undefined) {
        const head = await git(worktree, ['rev-parse', 'HEAD']);
        if (head !== done.commit)
          return uncertain(`the journal says the publication was done at ${done.commit.slice(0, 12)}, but the run branch is now at ${head.slice(0, 12)}`);
        const recorded = JSON.parse(await readFile(manifestFile(runDir), 'utf8')) as Manifest;
        if (recorded.status === 'published' && recorded.publication !== undefined)
          return { status: 'published', publication: recorded.publication, files: order, manifest: recorded };
      }
      if (begin === undefined) {
        const conflict = await conflicts(parameters, destination);
        if (conflict !== undefined) return { status: 'conflict', destination, ...conflict };
        begin = { event: 'begin', publication: manifestDigest, destination, base: await git(worktree, ['rev-parse', 'HEAD']), files: targets, at: now() };
        await log(begin);
      }
      const base = begin.base;
      const committed = find('committed');
      const head = await git(worktree, ['rev-parse', 'HEAD']);
      if (committed === undefined && head !== base && !entries.some((entry) => entry.event === 'committing')) {
        return uncertain(
          `the run branch moved from ${base.slice(0, 12)} to ${head.slice(0, 12)} during publication, and the journal records no commit of this publication`,
        );
      }
      if (committed === undefined && head === base) {
        const unknown = await copyFiles(publishing);
        if (unknown !== undefined) return uncertain(unknown);
      }
      let commit = committed?.commit;
      if (commit === undefined) {
        const made = head === base ? await commitFiles(publishing, manifestDigest) : await recogniseCommit(publishing, base, head);
        if (!made.ok) return uncertain(made.reason);
        commit = made.commit;
        await log({ event: 'committed', commit, at: now() });
      } else if (head !== commit) {
        return uncertain(`the journal records the publication commit ${commit.slice(0, 12)}, but the run branch is at ${head.slice(0, 12)}`);
      }

      const committedAt = (await git(worktree, ['show', '-s', '--format=%cI', commit])).trim();
      const publication: PublicationRecord = { destination, commit, manifest: manifestPath, journal, publishedAt: new Date(committedAt).toISOString() };
      const published: Manifest = { ...manifest, status: 'published', publication };
      await writeFileAtomic(manifestFile(runDir), `${JSON.stringify(published, null, 2)}\n`);
      await log({ event: 'done', commit, at: now() });
      return { status: 'published', publication, files: order, manifest: published };
    },
  );
}

/** Copies what is not there yet; a file with bytes this publication did not write is an unknown outcome, whose reason this returns. */
async function copyFiles({ request, targets, order, heartbeat, faults, log }: Publishing): Promise<string | undefined> {
  for (const file of order) {
    heartbeat();
    const expected = targets[file] as string;
    const target = path.join(request.parameters.worktree, ...file.split('/'));
    // A try killed inside the atomic write left its temporary file beside the target: never stage it.
    await removeAtomicLeftovers(target);
    const current = await digestOf(target);
    if (current === expected) continue;
    if (current !== null) return `${file} holds bytes (sha256 ${current.slice(0, 12)}) this publication did not write (expected ${expected.slice(0, 12)})`;
    await log({ event: 'writing', path: file, sha256: expected, at: now() });
    await writeFileAtomic(target, await get(request.runDir, expected), { beforeRename: () => faults.at('temp-written', file) });
    await log({ event: 'written', path: file, sha256: expected, at: now() });
  }
  return undefined;
}

type Committed = { ok: true; commit: string } | { ok: false; reason: string };

/** Commits the copied files on the run branch, when its index holds nothing else. */
async function commitFiles({ request, destination, targets, heartbeat, log }: Publishing, manifestDigest: string): Promise<Committed> {
  const { worktree, run, system } = request.parameters;
  heartbeat();
  await git(worktree, ['add', '--', destination]);
  const staged = (await git(worktree, ['diff', '--cached', '--name-only', '-z'])).split('\0').filter(Boolean);
  const foreign = staged.filter((file) => !(file in targets));
  if (foreign.length > 0) return { ok: false, reason: `the worktree's index holds changes this publication did not make: ${foreign.slice(0, 10).join(', ')}` };
  await log({ event: 'committing', at: now() });
  const message = `Publish analysis ${run} (${system})\n\nDestination: ${destination}\nPublished manifest sha256: ${manifestDigest}`;
  await git(worktree, [...(await commitIdentity(worktree)), 'commit', '--quiet', '--no-verify', '-m', message]);
  return { ok: true, commit: await git(worktree, ['rev-parse', 'HEAD']) };
}

/** Recognises the commit an interrupted try made: on the base, touching exactly this publication's files, each as it writes them. */
async function recogniseCommit({ request, targets, order }: Publishing, base: string, head: string): Promise<Committed> {
  const { worktree } = request.parameters;
  const parent = await git(worktree, ['rev-parse', 'HEAD^']).catch(() => '');
  const touched = (await git(worktree, ['diff', '--name-only', '-z', base, head])).split('\0').filter(Boolean);
  const same = parent === base && touched.length === order.length && touched.every((file) => file in targets);
  if (!same)
    return { ok: false, reason: `the run branch is at ${head.slice(0, 12)}, which is not the commit this publication was making on ${base.slice(0, 12)}` };
  for (const file of order) {
    const blob = await git(worktree, ['rev-parse', `${head}:${file}`]).catch(() => '');
    const expectedBlob = await git(worktree, ['hash-object', '--', file]).catch(() => '');
    const current = await digestOf(path.join(worktree, ...file.split('/')));
    if (blob === '' || blob !== expectedBlob || current !== targets[file])
      return { ok: false, reason: `the commit ${head.slice(0, 12)} does not hold ${file} as this publication writes it` };
  }
  return { ok: true, commit: head };
}
