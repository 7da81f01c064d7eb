/**
 * The status cache: what `review status` read from the results tree, kept against the stat of
 * each file and directory so the next run re-reads only what changed. A cache, never a source:
 * status is still computed from the files, and a missing, corrupt or other-version cache is
 * rebuilt from them without a word.
 *
 * - A directory's listing is reused while its stat (size, mtime and ctime in nanoseconds, inode,
 *   device) is unchanged: adding, removing or renaming an entry changes the directory's mtime and
 *   ctime. Otherwise it is read again.
 * - A result file's parsed record is reused while its stat is unchanged; any difference re-reads and
 *   re-parses it. Only results that parse and belong to a selected pair are kept (a malformed file,
 *   an orphan or a stray is read every time).
 * - Same-granularity edits: an entry whose ctime is less than {@link YOUNG_NS} before the moment
 *   status looked at it is not kept (read again next time). A later edit then happens after the
 *   ctime recorded, so it moves the ctime (which no program can set back) even on a filesystem
 *   with coarse timestamps, whatever the size and inode are. Assumes the filesystem's clock is
 *   this machine's (a local disk).
 *
 * The file is `.commonplace/cache/review-status.json` (machine-local, never committed), written
 * atomically and only when something in it changed; a run that cannot write it still answers.
 */
import { lstatSync, readdirSync, readFileSync, type BigIntStats } from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../fs/atomic.js';
import { absolute } from './files.js';
import { isOutcome, type Outcome } from './result-line.js';

/** The cache file, relative to the checkout root. */
export const STATUS_CACHE_FILE = '.commonplace/cache/review-status.json';

/** What this code writes and reads; anything else is rebuilt. */
export const STATUS_CACHE_FORMAT = 'commonplace-review-status-cache/1';

/** Entries changed less than this long before they were looked at are not kept: 3 s, above the 2 s timestamps of the coarsest filesystems. */
export const YOUNG_NS = 3_000_000_000n;

/** A result file's record as status uses it (the body and spend are not kept). */
export interface CachedResult {
  readonly noteSha256: string;
  readonly criterionSha256: string;
  readonly outcome: Outcome;
  readonly profile: string;
  readonly model: string;
  readonly run: string;
  readonly launch: string;
}

/** A file of the results tree as the scan found it: its stat key, and whether it is too young to keep. */
export interface ScannedFile {
  readonly path: string;
  readonly key: string;
  readonly young: boolean;
}

interface Listing {
  readonly key: string;
  readonly dirs: readonly string[];
  readonly files: readonly string[];
}

interface FileEntry {
  readonly key: string;
  readonly result: CachedResult;
}

export class StatusCache {
  private readonly dirs = new Map<string, Listing>();
  private readonly files = new Map<string, FileEntry>();
  private changed = false;
  private readonly youngAfter: bigint;

  private constructor(
    private readonly root: string,
    private readonly oldDirs: ReadonlyMap<string, Listing>,
    private readonly oldFiles: ReadonlyMap<string, FileEntry>,
    now: number,
  ) {
    this.youngAfter = BigInt(Math.floor(now)) * 1_000_000n - YOUNG_NS;
  }

  /** The checkout's cache, or an empty one when it is missing, unreadable, corrupt or of another format. */
  static load(root: string, now = Date.now()): StatusCache {
    const read = readCache(root);
    return new StatusCache(root, read?.dirs ?? new Map(), read?.files ?? new Map(), now);
  }

  /**
   * Every regular file under `dir` (repository-relative), hidden entries and symbolic links skipped,
   * as walkFiles finds them but unsorted: directories whose stat is unchanged are not read again.
   */
  scan(dir: string): ScannedFile[] {
    const found: ScannedFile[] = [];
    const visit = (relativeDir: string): void => {
      const stat = lstatSync(absolute(this.root, relativeDir), { bigint: true, throwIfNoEntry: false });
      if (stat === undefined || !stat.isDirectory()) return;
      const key = keyOf(stat);
      let listing = this.oldDirs.get(relativeDir);
      if (listing === undefined || listing.key !== key) {
        listing = list(this.root, relativeDir, key);
        if (listing === undefined) return;
      }
      if (stat.ctimeNs <= this.youngAfter) this.keepDir(relativeDir, listing);
      for (const name of listing.files) {
        const file = `${relativeDir}/${name}`;
        const fileStat = lstatSync(absolute(this.root, file), { bigint: true, throwIfNoEntry: false });
        if (fileStat === undefined || !fileStat.isFile()) continue; // gone since the listing
        found.push({ path: file, key: keyOf(fileStat), young: fileStat.ctimeNs > this.youngAfter });
      }
      for (const name of listing.dirs) visit(`${relativeDir}/${name}`);
    };
    visit(dir);
    return found;
  }

  /** The record kept for a file, when its stat is the one it was kept against (and keeps it for the next run). */
  result(file: ScannedFile): CachedResult | undefined {
    const entry = this.oldFiles.get(file.path);
    if (entry === undefined || entry.key !== file.key) return undefined;
    if (!file.young) this.files.set(file.path, entry);
    return entry.result;
  }

  /** Keeps a record just read, unless the file is too young to trust its stat. */
  remember(file: ScannedFile, result: CachedResult): void {
    if (file.young) return;
    this.files.set(file.path, { key: file.key, result });
    this.changed = true;
  }

  /** Writes the cache when it differs from what was loaded; a failure to write is ignored (the next run reads the files). */
  async save(): Promise<void> {
    if (!this.changed && this.dirs.size === this.oldDirs.size && this.files.size === this.oldFiles.size) return;
    try {
      await writeFileAtomic(path.join(this.root, ...STATUS_CACHE_FILE.split('/')), serialise(this.dirs, this.files), { fsync: false });
    } catch {
      // Read-only state, a full disk: status has answered from the files; the cache is only a saving.
    }
  }

  private keepDir(dir: string, listing: Listing): void {
    this.dirs.set(dir, listing);
    if (this.oldDirs.get(dir) !== listing) this.changed = true;
  }
}

/** What must be unchanged for a kept entry to stand: size, mtime and ctime to the nanosecond, inode and device. */
function keyOf(stat: BigIntStats): string {
  return `${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}:${stat.ino}:${stat.dev}`;
}

function list(root: string, dir: string, key: string): Listing | undefined {
  let entries;
  try {
    entries = readdirSync(absolute(root, dir), { withFileTypes: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw error;
  }
  const dirs: string[] = [];
  const files: string[] = [];
  for (const entry of entries) {
    if (entry.name.startsWith('.')) continue;
    if (entry.isDirectory()) dirs.push(entry.name);
    else if (entry.isFile()) files.push(entry.name);
  }
  return { key, dirs, files };
}

/**
 * The file: `{format, strings, dirs, files}`. `dirs` are `[path, key, subdirectories, files]`;
 * `files` are `[directory index, name, key, note hash, criterion hash, outcome, profile, model, run,
 * launch]`, every value but the name, key and launch an index into `strings` (they repeat across
 * thousands of results).
 */
function serialise(dirs: ReadonlyMap<string, Listing>, files: ReadonlyMap<string, FileEntry>): string {
  const strings: string[] = [];
  const ids = new Map<string, number>();
  const id = (value: string): number => {
    let found = ids.get(value);
    if (found === undefined) {
      found = strings.length;
      strings.push(value);
      ids.set(value, found);
    }
    return found;
  };
  const dirRows: unknown[] = [];
  const dirIds = new Map<string, number>();
  const dirId = (dir: string): number => {
    let found = dirIds.get(dir);
    if (found === undefined) {
      found = dirRows.length;
      const listing = dirs.get(dir);
      dirRows.push(listing === undefined ? [dir, '', [], []] : [dir, listing.key, listing.dirs, listing.files]);
      dirIds.set(dir, found);
    }
    return found;
  };
  for (const dir of dirs.keys()) dirId(dir);
  const fileRows: unknown[] = [];
  for (const [file, { key, result }] of files) {
    const cut = file.lastIndexOf('/');
    fileRows.push([
      dirId(file.slice(0, cut)),
      file.slice(cut + 1),
      key,
      id(result.noteSha256),
      id(result.criterionSha256),
      id(result.outcome),
      id(result.profile),
      id(result.model),
      id(result.run),
      result.launch,
    ]);
  }
  return JSON.stringify({ format: STATUS_CACHE_FORMAT, strings, dirs: dirRows, files: fileRows });
}

/** The cache's entries, or undefined when the file is missing or anything in it is not as written. */
function readCache(root: string): { dirs: Map<string, Listing>; files: Map<string, FileEntry> } | undefined {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path.join(root, ...STATUS_CACHE_FILE.split('/')), 'utf8'));
  } catch {
    return undefined;
  }
  if (typeof data !== 'object' || data === null) return undefined;
  const { format, strings, dirs: dirRows, files: fileRows } = data as Record<string, unknown>;
  if (format !== STATUS_CACHE_FORMAT || !Array.isArray(strings) || !Array.isArray(dirRows) || !Array.isArray(fileRows)) return undefined;
  if (!strings.every((value) => typeof value === 'string')) return undefined;
  const dirs = new Map<string, Listing>();
  const dirPaths: string[] = [];
  for (const row of dirRows as unknown[]) {
    if (!Array.isArray(row) || row.length !== 4) return undefined;
    const [dir, key, subdirs, files] = row as unknown[];
    if (typeof dir !== 'string' || typeof key !== 'string' || !isStrings(subdirs) || !isStrings(files)) return undefined;
    dirPaths.push(dir);
    if (key !== '') dirs.set(dir, { key, dirs: subdirs, files });
  }
  const files = new Map<string, FileEntry>();
  const text = (index: unknown): string | undefined => (typeof index === 'number' ? (strings as string[])[index] : undefined);
  for (const row of fileRows as unknown[]) {
    if (!Array.isArray(row) || row.length !== 10) return undefined;
    const dir = typeof row[0] === 'number' ? dirPaths[row[0]] : undefined;
    const [name, key, launch] = [row[1], row[2], row[9]] as unknown[];
    const [noteSha256, criterionSha256, outcome, profile, model, run] = [text(row[3]), text(row[4]), text(row[5]), text(row[6]), text(row[7]), text(row[8])];
    if (
      dir === undefined ||
      typeof name !== 'string' ||
      typeof key !== 'string' ||
      typeof launch !== 'string' ||
      noteSha256 === undefined ||
      criterionSha256 === undefined ||
      !isOutcome(outcome) ||
      profile === undefined ||
      model === undefined ||
      run === undefined
    )
      return undefined;
    files.set(`${dir}/${name}`, { key, result: { noteSha256, criterionSha256, outcome, profile, model, run, launch } });
  }
  return { dirs, files };
}

function isStrings(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}
