/**
 * The status cache: what `review status` read, kept against the stat of each file and directory so
 * the next run re-reads only what changed. A cache, never a source: status is still computed from
 * the files, and a missing, corrupt or other-format cache is rebuilt from them without a word.
 *
 * - A results directory's listing is reused while its stat is unchanged (adding, removing or renaming
 *   an entry changes the directory's mtime and ctime); otherwise it is read again.
 * - A result file's parsed record is reused while its stat is unchanged; any difference re-reads and
 *   re-parses it. Only results that parse are kept, and they are used only for a selected pair (a
 *   malformed file, an orphan or a stray is read every time).
 * - A note's facts (no frontmatter, no `type:`, or its type, traits and part digests) are reused while
 *   its stat is unchanged; a note whose frontmatter does not read is read every time.
 * - The stat compared is size, mtime, ctime and inode, the times as Node's millisecond numbers (a
 *   fraction keeps sub-microsecond steps): `BigInt` stats cost more than they could add, given the next
 *   rule.
 * - Same-granularity edits: an entry whose ctime is less than {@link YOUNG_MS} before the moment
 *   status looked at it is not kept (read again next time). A later edit then happens after the
 *   ctime recorded, so it moves the ctime (which no program can set) even on a filesystem with
 *   coarse timestamps, whatever the size and inode are. Assumes the filesystem's clock is this
 *   machine's (a local disk).
 *
 * The file is `.commonplace/cache/review-status.json` (machine-local, never committed), written
 * atomically and only when something in it changed; a run that cannot write it still answers.
 */
import { fstatSync, lstatSync, readdirSync, readFileSync, type Stats } from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../fs/atomic.js';
import { absolute } from './files.js';
import type { ResultRecord } from './result-file.js';
import { isOutcome } from './result-line.js';
import type { NoteFacts, NoteFactsCache } from './reviewable.js';
import { WATCHED_PARTS } from './hash.js';

/** The cache file, relative to the checkout root. */
export const STATUS_CACHE_FILE = '.commonplace/cache/review-status.json';

/**
 * What this code writes and reads; anything else is rebuilt. Change it whenever what is kept would
 * come out differently: the result parse, the note facts, the part digests (src/review/hash.ts).
 */
export const STATUS_CACHE_FORMAT = 'commonplace-review-status-cache/1';

/** Entries changed less than this long before they were looked at are not kept: 3 s, above the 2 s timestamps of the coarsest filesystems. */
export const YOUNG_MS = 3000;

/** A result file's record as status uses it (the body and spend are not kept). */
export type CachedResult = Pick<ResultRecord, 'noteSha256' | 'criterionSha256' | 'outcome' | 'profile' | 'model' | 'run' | 'launch'>;

/**
 * A kept record as the file holds it: `[size, mtimeMs, ctimeMs, ino, note hash, criterion hash,
 * outcome, profile, model, run, launch]`, size to inode the stat it was kept against (milliseconds,
 * to a fraction of a microsecond), the hashes to the run indexes into the cache's strings (they repeat
 * across thousands of results), the launch `+<rest>` when it is the run followed by `/<rest>`, else
 * `=<launch>`. Kept as JSON parsed it: checked when used, and a row that does not check is not used.
 */
type Row = readonly unknown[];

/** A directory as last read: its stat `[size, mtimeMs, ctimeMs, ino]` (null when too young to trust), entries, and one row per file (null where none is kept). */
type Listing = [path: string, stat: readonly number[] | null, dirs: readonly string[], files: readonly string[], rows: (Row | null)[]];

/** A file of the results tree as the scan found it, for {@link StatusCache.remember}. */
export interface ScannedFile {
  readonly path: string;
  /** Undefined when nothing is kept for the file: it is to be read, and {@link StatusCache.opened} stats it then. */
  stat: Stats | undefined;
  readonly listing: Listing;
  readonly position: number;
}

/**
 * A note's kept facts: `[size, mtimeMs, ctimeMs, ino, kind, traits, title, description, body,
 * frontmatter digests, path]`, kind 0 for a file without frontmatter, 1 for one without a `type:`,
 * else the `type:` as written.
 */
type NoteRow = readonly unknown[];

export class StatusCache implements NoteFactsCache {
  private readonly listings: Listing[] = [];
  private readonly noteRows: NoteRow[] = [];
  private readonly ids = new Map<string, number>();
  private changed = false;
  private readonly youngAfter: number;

  private constructor(
    private readonly root: string,
    private readonly old: ReadonlyMap<string, Listing>,
    private readonly oldNotes: ReadonlyMap<string, NoteRow>,
    private readonly strings: string[],
    now: number,
  ) {
    this.youngAfter = now - YOUNG_MS;
    strings.forEach((value, index) => this.ids.set(value, index));
  }

  /** The checkout's cache, or an empty one when it is missing, unreadable, corrupt or of another format. */
  static load(root: string, now = Date.now()): StatusCache {
    const read = readCache(root);
    return new StatusCache(root, read?.dirs ?? new Map(), read?.notes ?? new Map(), read?.strings ?? [], now);
  }

  /** The facts kept for a note file whose stat is unchanged (the note index asks once per file). */
  note(file: string): { readonly facts: NoteFacts | undefined; keep(facts: NoteFacts): void } {
    const stat = lstatSync(absolute(this.root, file), { throwIfNoEntry: false });
    if (stat === undefined || !stat.isFile()) return { facts: undefined, keep: () => undefined };
    const young = stat.ctimeMs > this.youngAfter;
    const old = this.oldNotes.get(file);
    const facts = old !== undefined && same(old, stat) ? noteFacts(old) : undefined;
    if (facts !== undefined) {
      if (!young) this.noteRows.push(old as NoteRow);
      return { facts, keep: () => undefined };
    }
    return {
      facts: undefined,
      keep: (read: NoteFacts): void => {
        if (young) return;
        const kind = read.kind === 'plain' ? 0 : read.kind === 'untyped' ? 1 : read.type;
        const digests = read.kind === 'typed' ? WATCHED_PARTS.map((part) => read.digests[part]) : ['', '', '', ''];
        this.noteRows.push([stat.size, stat.mtimeMs, stat.ctimeMs, stat.ino, kind, read.kind === 'typed' ? read.traits : [], ...digests, file]);
        this.changed = true;
      },
    };
  }

  /**
   * Calls `visit` for every regular file under `dir` (repository-relative), hidden entries and symbolic
   * links skipped, as walkFiles finds them but unsorted, with the record kept against the file's
   * current stat, if any. Directories whose stat is unchanged are not read again.
   */
  scan(dir: string, visit: (file: ScannedFile, kept: CachedResult | undefined) => void): void {
    const walk = (relativeDir: string): void => {
      const stat = lstatSync(absolute(this.root, relativeDir), { throwIfNoEntry: false });
      if (stat === undefined || !stat.isDirectory()) return;
      const old = this.old.get(relativeDir);
      const young = stat.ctimeMs > this.youngAfter;
      let listing: Listing;
      if (old !== undefined && same(old[1], stat)) {
        listing = young ? [relativeDir, null, old[2], old[3], old[4]] : old;
      } else {
        const read = list(this.root, relativeDir);
        if (read === undefined) return;
        listing = [relativeDir, young ? null : [stat.size, stat.mtimeMs, stat.ctimeMs, stat.ino], read.dirs, read.files, carried(old, read.files)];
        this.changed = true;
      }
      this.listings.push(listing);
      const [, , dirs, files, rows] = listing;
      for (let position = 0; position < files.length; position += 1) {
        const file = `${relativeDir}/${files[position] as string}`;
        const row = rows[position];
        if (row == null) {
          // Nothing kept: the file is read, and stat'ed through its descriptor then (one path lookup, not two).
          visit({ path: file, stat: undefined, listing, position }, undefined);
          continue;
        }
        const fileStat = lstatSync(absolute(this.root, file), { throwIfNoEntry: false });
        if (fileStat === undefined || !fileStat.isFile()) continue; // gone since the listing
        const kept = same(row, fileStat) ? this.decode(row) : undefined;
        if (kept === undefined) {
          rows[position] = null;
          this.changed = true;
        }
        visit({ path: file, stat: fileStat, listing, position }, kept);
      }
      for (const name of dirs) walk(`${relativeDir}/${name}`);
    };
    walk(dir);
    if (this.listings.length !== this.old.size) this.changed = true;
  }

  /** Stats a scanned file through the descriptor it is being read from (before it is read). */
  opened(file: ScannedFile, fd: number): void {
    file.stat ??= fstatSync(fd);
  }

  /** Keeps a record just read, unless the file changed too recently to trust its stat (or was never stat'ed). */
  remember(file: ScannedFile, result: CachedResult): void {
    if (file.stat === undefined) return;
    const { size, mtimeMs, ctimeMs, ino } = file.stat;
    if (ctimeMs > this.youngAfter) return;
    const launch = result.launch.startsWith(`${result.run}/`) ? `+${result.launch.slice(result.run.length + 1)}` : `=${result.launch}`;
    const id = (value: string): number => {
      let found = this.ids.get(value);
      if (found === undefined) {
        found = this.strings.length;
        this.strings.push(value);
        this.ids.set(value, found);
      }
      return found;
    };
    file.listing[4][file.position] = [
      size,
      mtimeMs,
      ctimeMs,
      ino,
      id(result.noteSha256),
      id(result.criterionSha256),
      id(result.outcome),
      id(result.profile),
      id(result.model),
      id(result.run),
      launch,
    ];
    this.changed = true;
  }

  /** Writes the cache when it differs from what was loaded; a failure to write is ignored (the next run reads the files). */
  async save(): Promise<void> {
    if (!this.changed && this.noteRows.length === this.oldNotes.size) return;
    try {
      const text = JSON.stringify({ format: STATUS_CACHE_FORMAT, strings: this.strings, notes: this.noteRows, dirs: this.listings });
      await writeFileAtomic(path.join(this.root, ...STATUS_CACHE_FILE.split('/')), text, { fsync: false });
    } catch {
      // Read-only state, a full disk: status has answered from the files; the cache is only a saving.
    }
  }

  /** A kept row's record, or undefined when the row is not as written. */
  private decode(row: Row): CachedResult | undefined {
    const { strings } = this;
    const noteSha256 = strings[row[4] as number];
    const criterionSha256 = strings[row[5] as number];
    const outcome = strings[row[6] as number];
    const profile = strings[row[7] as number];
    const model = strings[row[8] as number];
    const run = strings[row[9] as number];
    const written = row[10];
    if (noteSha256 === undefined || criterionSha256 === undefined || !isOutcome(outcome) || profile === undefined || model === undefined || run === undefined)
      return undefined;
    if (typeof written !== 'string' || row.length !== 11) return undefined;
    const launch = written.startsWith('+') ? `${run}/${written.slice(1)}` : written.startsWith('=') ? written.slice(1) : undefined;
    if (launch === undefined) return undefined;
    return { noteSha256, criterionSha256, outcome, profile, model, run, launch };
  }
}

/** Whether a kept stat (`[size, mtimeMs, ctimeMs, ino, …]`) is the file's stat now: any difference, or a kept value that is not a number, is a change. */
function same(kept: readonly unknown[] | null, stat: Stats): boolean {
  return kept !== null && kept[2] === stat.ctimeMs && kept[1] === stat.mtimeMs && kept[0] === stat.size && kept[3] === stat.ino;
}

/** A kept note row's facts, or undefined when the row is not as written. */
function noteFacts(row: NoteRow): NoteFacts | undefined {
  const [kind, traits, title, description, body, frontmatter] = [row[4], row[5], row[6], row[7], row[8], row[9]];
  if (row.length !== 11) return undefined;
  if (kind === 0) return { kind: 'plain' };
  if (kind === 1) return { kind: 'untyped' };
  if (typeof kind !== 'string' || !isStrings(traits)) return undefined;
  if (typeof title !== 'string' || typeof description !== 'string' || typeof body !== 'string' || typeof frontmatter !== 'string') return undefined;
  return { kind: 'typed', type: kind, traits, digests: { title, description, body, frontmatter } };
}

/** The rows of a re-read directory's files that were kept before, matched by name. */
function carried(old: Listing | undefined, files: readonly string[]): (Row | null)[] {
  if (old === undefined) return files.map(() => null);
  const byName = new Map<string, Row>();
  old[3].forEach((name, position) => {
    const row = old[4][position];
    if (row != null) byName.set(name, row);
  });
  return files.map((name) => byName.get(name) ?? null);
}

function list(root: string, dir: string): { dirs: string[]; files: string[] } | undefined {
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
  return { dirs, files };
}

/**
 * The cache's directories and strings, or undefined when the file is missing or not as written:
 * `{format, strings, dirs}`, each directory a {@link Listing}. The shapes are checked here, the file
 * rows when they are used.
 */
function readCache(root: string): { dirs: Map<string, Listing>; notes: Map<string, NoteRow>; strings: string[] } | undefined {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path.join(root, ...STATUS_CACHE_FILE.split('/')), 'utf8'));
  } catch {
    return undefined;
  }
  if (typeof data !== 'object' || data === null) return undefined;
  const { format, strings, dirs: rows, notes: noteRows } = data as Record<string, unknown>;
  if (format !== STATUS_CACHE_FORMAT || !isStrings(strings) || !Array.isArray(rows) || !Array.isArray(noteRows)) return undefined;
  const notes = new Map<string, NoteRow>();
  for (const row of noteRows as unknown[]) {
    if (!Array.isArray(row) || typeof row[10] !== 'string') return undefined;
    notes.set(row[10], row);
  }
  const dirs = new Map<string, Listing>();
  for (const row of rows as unknown[]) {
    if (!Array.isArray(row) || row.length !== 5) return undefined;
    const [dir, stat, subdirs, files, records] = row as unknown[];
    if (typeof dir !== 'string' || !(stat === null || Array.isArray(stat)) || !isStrings(subdirs) || !isStrings(files)) return undefined;
    if (!Array.isArray(records) || records.length !== files.length || !records.every((record) => record === null || Array.isArray(record))) return undefined;
    dirs.set(dir, row as Listing);
  }
  return { dirs, notes, strings };
}

function isStrings(value: unknown): value is string[] {
  if (!Array.isArray(value)) return false;
  for (const item of value) if (typeof item !== 'string') return false;
  return true;
}
