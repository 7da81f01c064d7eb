/**
 * A harness write into the worker's state directory outside every launch directory (and every checkout): neither the
 * output checks nor a guard sees it. The directories between the state directory and the launch directory are watched
 * while the try runs, so the cost does not grow with the runs held; stray top-level directories are walked to a bound
 * (`unexamined` where it stopped). Directories are launches' places, so only files are named; held checkouts are not walked.
 */
import { realpathSync, watch, type FSWatcher } from 'node:fs';
import { lstat, mkdir, opendir, readdir, rm, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

/** Entries of the state directory the worker writes itself, by their name. */
const WORKER_OWNED = [/^tries$/, /^temporal\.db/, /^temporal-server\.log$/, /^checkout-id$/, /^jest-results\.json$/];

/** Entries of the state directory that hold launch directories (a sweep's `review/<run>/<unit>/attempt-N`, a probe's `probes/<id>`). */
const LAUNCH_AREAS = new Set(['review', 'probes']);

/** A file's time comes from a clock that can trail `Date.now()` by a tick: times this much before a try's start count as during it. */
const COARSE_CLOCK_MS = 20;

/** Temporary files of atomic writes. */
const TEMPORARY = /\.tmp(-|$)/;

/** Entries looked at in stray directories at the top of the state directory before the check stops there and says so. */
export const STRAY_WALK_LIMIT = 1_000;

export interface StrayCheck {
  /** Files written during the try outside every launch directory, relative to the state directory. */
  written: string[];
  /** Entries the check read or examined: what its cost is counted in. */
  visited: number;
  /** Directories, relative to the state directory, where the check stopped before it had looked at everything. */
  unexamined: string[];
  /** Why the check could not run, when it could not. */
  failed?: string;
}

/** Watches the directories between the state directory and a launch directory while a try runs. */
export async function watchStateWrites(stateDir: string, launchDir: string, checkouts: string[] = []): Promise<StrayWatch> {
  const root = resolve(stateDir);
  const dir = resolve(launchDir);
  // The launch makes its directory as it starts: its folders are made first, so that they can be watched from the start.
  if (insideLaunchArea(root, dir)) await mkdir(dirname(dir), { recursive: true }).catch(() => undefined);
  return new StrayWatch(root, dir, checkoutsWithin(root, checkouts));
}

/** The held checkouts' directories as the walk from `root` spells them: each as given, and as its real path read from the state directory's. */
function checkoutsWithin(root: string, checkouts: string[]): Set<string> {
  const real = (path: string): string | undefined => {
    try {
      return realpathSync(path);
    } catch {
      return undefined; // not there (a worktrees root before the first run)
    }
  };
  const realRoot = real(root);
  const spelled = new Set<string>();
  for (const checkout of checkouts) {
    spelled.add(resolve(checkout));
    const realCheckout = real(checkout);
    if (realRoot !== undefined && realCheckout !== undefined) spelled.add(join(root, relative(realRoot, realCheckout)));
  }
  return spelled;
}

function insideLaunchArea(root: string, dir: string): boolean {
  const rel = relative(root, dir);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) && LAUNCH_AREAS.has(rel.split(sep)[0] ?? '');
}

/** A watched directory: the names its watch reported, and the markers the check waits for. */
interface Watched {
  dir: string;
  watcher?: FSWatcher;
  names: Set<string>;
  waiting: Map<string, () => void>;
}

/** How long the check waits for its own marker's event before it reads the directory instead. */
const MARKER_WAIT_MS = 2_000;
let markers = 0;

/** Whether a watch has reported everything written before now: a marker's event awaited (one watch's events arrive in order). */
async function flushed(watched: Watched): Promise<boolean> {
  if (watched.watcher === undefined) return false;
  markers += 1;
  const marker = `.stray-check-${process.pid}-${markers}.tmp`;
  let timer: NodeJS.Timeout | undefined;
  const seen = new Promise<boolean>((done) => {
    watched.waiting.set(marker, () => done(true));
    timer = setTimeout(() => done(false), MARKER_WAIT_MS);
  });
  try {
    await writeFile(join(watched.dir, marker), '');
    return await seen;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
    watched.waiting.delete(marker);
    await rm(join(watched.dir, marker), { force: true }).catch(() => undefined);
  }
}

/** Whether a path's own time says it changed since `sinceMs` (false when it is gone). */
async function changedSince(path: string, sinceMs: number): Promise<boolean> {
  return ((await lstat(path).catch(() => undefined))?.mtimeMs ?? -Infinity) >= sinceMs;
}

/** One try's watch over where it could write outside its launch directory; closed when the launch ends. */
export class StrayWatch {
  private readonly openedAt = Date.now();
  /** Per directory between the state directory and the launch directory: its watch and the names written in it. */
  private readonly between: Watched[] = [];

  constructor(
    private readonly root: string,
    private readonly launchDir: string,
    /** Held checkouts and their worktrees roots: not walked. */
    private readonly checkouts: Set<string> = new Set(),
  ) {
    if (!insideLaunchArea(root, launchDir)) return;
    for (let dir = dirname(launchDir); dir !== root && dir.startsWith(root + sep); dir = dirname(dir)) {
      const watched: Watched = { dir, names: new Set<string>(), waiting: new Map() };
      try {
        watched.watcher = watch(dir, { persistent: false }, (_event, name) => {
          if (!name) return;
          const text = name.toString();
          watched.names.add(text);
          watched.waiting.get(text)?.();
        });
        watched.watcher.on('error', () => watched.watcher?.close());
      } catch {
        // not there, or no watches left: the check reads the directory instead
      }
      this.between.push(watched);
    }
  }

  /** What the try wrote outside every launch directory since `sinceMs` (its start). */
  async check(sinceMs: number): Promise<StrayCheck> {
    const result: StrayCheck = { written: [], visited: 0, unexamined: [] };
    const since = sinceMs - COARSE_CLOCK_MS;
    await this.checkRoot(since, result);
    for (const watched of this.between) {
      const { dir, names } = watched;
      // A watch opened after the try began (an adopted try), never opened, or slow to report did not see everything: read the directory.
      const complete = this.openedAt <= sinceMs && (await flushed(watched));
      const candidates = complete ? [...names] : await this.changedFiles(dir, since, result);
      const onPath = relative(dir, this.launchDir).split(sep)[0];
      for (const name of candidates) {
        if (name === onPath || TEMPORARY.test(name)) continue;
        result.visited += 1;
        const stat = await lstat(join(dir, name)).catch(() => undefined);
        if (stat === undefined || stat.isDirectory()) continue; // removed, or a launch's place
        // A name its watch reported was written while the try ran; one read from the directory, if its time says so.
        if (complete || stat.mtimeMs >= since) result.written.push(relative(this.root, join(dir, name)));
      }
    }
    result.written = [...new Set(result.written)].sort();
    return result;
  }

  close(): void {
    for (const { watcher } of this.between) watcher?.close();
  }

  /** The state directory's own entries: besides the worker's and the launch areas, every file changed since the try began. */
  private async checkRoot(sinceMs: number, result: StrayCheck): Promise<void> {
    const entries = await readdir(this.root, { withFileTypes: true }).catch(() => []);
    let budget = STRAY_WALK_LIMIT;
    for (const entry of entries) {
      result.visited += 1;
      if (WORKER_OWNED.some((pattern) => pattern.test(entry.name)) || LAUNCH_AREAS.has(entry.name) || TEMPORARY.test(entry.name)) continue;
      const path = join(this.root, entry.name);
      if (this.checkouts.has(path)) continue;
      if (entry.isDirectory()) budget = await this.walkStray(path, sinceMs, result, budget);
      else if (await changedSince(path, sinceMs)) result.written.push(entry.name);
    }
  }

  /** Walks a directory no launch owns, up to the entries left in `budget`; returns what is left. */
  private async walkStray(top: string, sinceMs: number, result: StrayCheck, budget: number): Promise<number> {
    const pending = [top];
    while (pending.length > 0) {
      const dir = pending.pop() as string;
      const listing = await opendir(dir).catch(() => undefined);
      if (listing === undefined) continue;
      for await (const entry of listing) {
        if (budget === 0) {
          result.unexamined.push(relative(this.root, dir));
          result.unexamined.push(...pending.map((left) => relative(this.root, left)));
          return 0; // leaving the loop closes the listing
        }
        budget -= 1;
        result.visited += 1;
        const path = join(dir, entry.name);
        if (entry.isDirectory()) {
          if (!this.checkouts.has(path)) pending.push(path);
        } else if (!TEMPORARY.test(entry.name) && (await changedSince(path, sinceMs))) {
          result.written.push(relative(this.root, path));
        }
      }
    }
    return budget;
  }

  /** A directory's files when an entry of it was made, renamed or removed since `sinceMs` (its own time says so): none otherwise. */
  private async changedFiles(dir: string, sinceMs: number, result: StrayCheck): Promise<string[]> {
    result.visited += 1;
    if (!(await changedSince(dir, sinceMs))) return [];
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    result.visited += entries.length;
    return entries.filter((entry) => !entry.isDirectory()).map((entry) => entry.name);
  }
}
