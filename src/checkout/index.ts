/**
 * The checkout a command or a run works on, and the one module that resolves it:
 * - located: the Git root above the current directory that holds `kb/`, or the one `--kb` names (a directory, or the ID of a
 *   checkout this host has on record); the package is installed apart from any KB;
 * - its ID: short and stable, part of every run's workflow ID so checkouts sharing a namespace never collide; derived once from
 *   its real path and kept in `.commonplace/checkout-id` (run state, never committed), so a checkout keeps it when it moves;
 * - this host's record of the checkouts its commands named (`<state home>/commonplace/checkouts/<ID>`), for `--kb <ID>`;
 * - held: the places (./places.ts) a host knows, so `HostPlaces` turns tokens into this host's paths as an activity starts, and
 *   back as it returns or fails. A worker holds the checkouts `--kb` names; a client the one its command names.
 */
import { ApplicationFailure } from '@temporalio/common';
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { mkdir, readFile, realpath } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { writeFileAtomic } from '../fs/atomic.js';
import { sha256 } from '../fs/digest.js';
import { pathExistsSync } from '../fs/exists.js';
import { packageRoot } from '../paths.js';
import { KbError } from '../kb/errors.js';
import { ignoreMachineLocal } from '../kb/machine-local.js';
import { CHECKOUT_ID, checkoutRoot, looksLikeCheckoutId, PACKAGE_ROOT, STATE_ROOT, worktreesRoot } from './places.js';

export * from './places.js';

export interface Checkout {
  /** The repository root: type paths such as `kb/types/note.md` resolve against it. */
  readonly root: string;
  /** `<root>/kb`. */
  readonly kbDir: string;
}

export interface HeldCheckout {
  id: string;
  /** The checkout root on this host. */
  root: string;
  /** Where its run worktrees go on this host. */
  worktrees: string;
}

// The checkout ID.

export const checkoutIdFile = (root: string) => path.join(root, '.commonplace', 'checkout-id');

/** The ID a checkout at this real path gets on first use. */
export function deriveCheckoutId(realRoot: string): string {
  return sha256(realRoot).slice(0, 8);
}

/** A small file's one line, or '' when there is none. */
function lineOf(file: string): string {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    return '';
  }
}

function recordedId(root: string): string | undefined {
  const recorded = lineOf(checkoutIdFile(root));
  return CHECKOUT_ID.test(recorded) ? recorded : undefined;
}

/** The checkout's ID without recording it: the recorded one, or the one its first command will record. */
export async function knownCheckoutId(root: string): Promise<string> {
  return recordedId(root) ?? deriveCheckoutId(await realpath(root));
}

/** The checkout's ID: the recorded one, or (on first use) one derived from its real path and recorded. */
export async function checkoutId(root: string): Promise<string> {
  const recorded = recordedId(root);
  if (recorded !== undefined) return recorded;
  const id = deriveCheckoutId(await realpath(root));
  await writeFileAtomic(checkoutIdFile(root), `${id}\n`);
  return id;
}

// This host's record of the checkouts it named.

/** Where this host keeps state that is neither configuration nor cache (the XDG base directories' rule: a relative value is ignored). */
export function stateHome(env: NodeJS.ProcessEnv = process.env): string {
  const given = env.XDG_STATE_HOME;
  return given && path.isAbsolute(given) ? given : path.join(env.HOME || homedir(), '.local', 'state');
}

/** The record's file for one checkout ID. */
export const knownCheckoutFile = (id: string, env: NodeJS.ProcessEnv = process.env) => path.join(stateHome(env), 'commonplace', 'checkouts', id);

/** Records that the checkout with ID `id` is at `root` on this host; writes (atomically) only when the record says otherwise. Returns whether it wrote. */
export async function recordCheckout(id: string, root: string, env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  if (!looksLikeCheckoutId(id)) return false;
  const file = knownCheckoutFile(id, env);
  const content = `${path.resolve(root)}\n`;
  if ((await readFile(file, 'utf8').catch(() => undefined)) === content) return false;
  await writeFileAtomic(file, content, { fsync: false });
  return true;
}

/** `recordCheckout` for a command: a record it cannot write (a read-only home) fails nothing and says nothing, since only `--kb <ID>` needs it. */
export async function recordNamed(id: string, root: string): Promise<void> {
  await recordCheckout(id, root).catch(() => undefined);
}

/** The root this host recorded for a checkout ID, if any. */
export function recordedRoot(id: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  return (looksLikeCheckoutId(id) && lineOf(knownCheckoutFile(id, env))) || undefined;
}

// The locator.

/** Finds the KB checkout a command runs on, or says exactly why there is none and how to name one. */
export function findCheckout(startDir: string, kbOption?: string, env: NodeJS.ProcessEnv = process.env): Checkout {
  if (kbOption !== undefined) {
    let named = path.resolve(startDir, kbOption);
    // A directory of that name wins over a checkout ID.
    if (!isDirectory(named) && looksLikeCheckoutId(kbOption)) named = recordedCheckout(kbOption, env);
    if (!isDirectory(named)) throw new KbError('no-checkout', `--kb ${kbOption}: ${named} is not a directory`);
    if (isDirectory(path.join(named, 'kb'))) return { root: named, kbDir: path.join(named, 'kb') };
    // Accept the kb/ directory itself too: `--kb ~/notes/kb` means the checkout above it.
    if (path.basename(named) === 'kb') return { root: path.dirname(named), kbDir: named };
    throw new KbError('no-checkout', `--kb ${kbOption}: ${named} holds no kb/ directory; name the checkout whose kb/ holds the notes`);
  }
  for (let dir = path.resolve(startDir); ; dir = path.dirname(dir)) {
    if (pathExistsSync(path.join(dir, '.git'))) {
      if (isDirectory(path.join(dir, 'kb'))) return { root: dir, kbDir: path.join(dir, 'kb') };
      throw new KbError('no-checkout', `the Git checkout at ${dir} has no kb/ directory; run inside a KB checkout or pass --kb DIR`);
    }
    if (path.dirname(dir) === dir)
      throw new KbError('no-checkout', `${path.resolve(startDir)} is not inside a Git checkout; run inside a KB checkout or pass --kb DIR`);
  }
}

/** The root this host recorded for a checkout ID, once the checkout there still has that ID. */
function recordedCheckout(id: string, env: NodeJS.ProcessEnv): string {
  const root = recordedRoot(id, env);
  if (root === undefined) {
    throw new KbError(
      'no-checkout',
      `--kb ${id}: no directory of that name, and this host has no checkout with that ID on record (a checkout is recorded the first time a command names it); name the checkout's directory`,
    );
  }
  const now = isDirectory(path.join(root, 'kb')) ? (recordedId(root) ?? deriveCheckoutId(realpathSync(root))) : undefined;
  if (now === id) return root;
  const which = now === undefined ? 'is no checkout' : `has ID ${now}`;
  throw new KbError('no-checkout', `--kb ${id}: this host recorded checkout ${id} at ${root}, which ${which} now; name the checkout's directory`);
}

function isDirectory(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

/** The default place for a checkout's run worktrees: beside the checkout, never inside it (a worker must not load the checkout's own startup files). */
export const defaultWorktreesRoot = (checkout: string) => path.join(path.dirname(checkout), `${path.basename(checkout)}.worktrees`);

/**
 * The checkout a directory names, with its ID recorded where it can be, so a worker that sees it at another path (a container's
 * `/kb`) and the CLI on the host agree on it whichever comes first; this host records where it is.
 */
export async function checkoutAt(dir: string, worktrees?: string): Promise<HeldCheckout> {
  const { root } = findCheckout(process.cwd(), dir);
  const id = await checkoutId(root).catch(() => knownCheckoutId(root));
  await recordNamed(id, root);
  return { id, root, worktrees: path.resolve(worktrees ?? defaultWorktreesRoot(root)) };
}

/** The checkout `--kb` or the current directory names, if any (a command may need none), with its ID; nothing is written in it. */
export async function checkoutHere(kb: string | undefined): Promise<HeldCheckout | undefined> {
  try {
    const { root } = findCheckout(process.cwd(), kb);
    const id = await knownCheckoutId(root);
    await recordNamed(id, root);
    return { id, root, worktrees: defaultWorktreesRoot(root) };
  } catch {
    return undefined;
  }
}

/**
 * Opens the checkout for runs once a command is going to do work: Git ignores the machine-local state runs write (said once, on
 * stderr), and the ID is recorded in the checkout and on this host.
 */
export async function openCheckout(root: string): Promise<string> {
  const ignored = await ignoreMachineLocal(root);
  if (ignored && ignored.added.length > 0) {
    const file = path.relative(root, ignored.file) || ignored.file;
    process.stderr.write(`added ${ignored.added.join(' ')} to ${file}: machine-local run state and review results, never committed\n`);
  }
  const id = await checkoutId(root);
  await recordNamed(id, root);
  return id;
}

/**
 * A value as workflow data carries it: its paths written from their tokens. A profiles file outside the checkout is copied into
 * the checkout's machine-local state first (content-addressed), so the workers holding it read the profiles the command checked.
 */
export async function carried<T>(value: T, checkout: HeldCheckout): Promise<T> {
  const places = new HostPlaces();
  places.add(checkout);
  const profilesFile = (value as { profilesFile?: unknown }).profilesFile;
  if (typeof profilesFile !== 'string' || places.toPortable(profilesFile) !== profilesFile) return places.toPortable(value);
  const bytes = await readFile(profilesFile);
  const copy = path.join(checkout.root, '.commonplace', 'profiles', `${sha256(bytes).slice(0, 16)}-${path.basename(profilesFile)}`);
  await mkdir(path.dirname(copy), { recursive: true });
  await writeFileAtomic(copy, bytes);
  return places.toPortable({ ...value, profilesFile: copy });
}

// The places one host knows.

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The path and its real path (a symbolic link on the way, macOS's /private/tmp), each once. */
function spellings(dir: string): string[] {
  let real = dir;
  try {
    real = realpathSync(dir);
  } catch {
    // not there yet (a worktrees root before the first run): its given spelling only
  }
  return [...new Set([path.resolve(dir), real])];
}

export class HostPlaces {
  private readonly held = new Map<string, HeldCheckout>();
  private portable: { pattern: RegExp; tokens: Map<string, string> } | undefined;

  constructor(private readonly options: { stateDir?: string; packageRoot?: string } = {}) {}

  /** Holds a checkout: its tokens now resolve here. */
  add(checkout: HeldCheckout): void {
    const known = this.held.get(checkout.id);
    if (known && known.root !== checkout.root) {
      throw new Error(
        `checkouts ${known.root} and ${checkout.root} share the checkout ID ${checkout.id}: one was copied with its .commonplace/checkout-id; delete that file in the copy`,
      );
    }
    this.held.set(checkout.id, checkout);
    this.portable = undefined;
  }

  holds(id: string): boolean {
    return this.held.has(id);
  }

  checkouts(): HeldCheckout[] {
    return [...this.held.values()];
  }

  /** Workflow data as this host reads it: every place token replaced by this host's path. */
  toHost<T>(value: T): T {
    return mapStrings(value, (text) => this.hostText(text)) as T;
  }

  /** This host's data as workflow data carries it: every path under a known root written from its token. */
  toPortable<T>(value: T): T {
    return mapStrings(value, (text) => this.portableText(text)) as T;
  }

  /** A text with this host's paths written from their tokens. */
  portableText(text: string): string {
    const { pattern, tokens } = (this.portable ??= this.portablePattern());
    return tokens.size === 0 ? text : text.replace(pattern, (found) => tokens.get(found)!);
  }

  private hostText(text: string): string {
    if (!text.includes('<')) return text;
    return text.replace(/<(checkout|worktrees):([0-9a-f]{8})>|<state>|<package>/g, (token, kind: string | undefined, id: string | undefined) => {
      // A client has no state directory: a worker's `<state>` means nothing on it and stays as written.
      if (token === STATE_ROOT) return this.options.stateDir ?? token;
      if (token === PACKAGE_ROOT) return this.options.packageRoot ?? packageRoot();
      const checkout = this.held.get(id!);
      if (!checkout) {
        // A token inside other text (a note quoting one) names no path this activity needs: it is left as written.
        if (!text.startsWith(token)) return token;
        throw ApplicationFailure.create({
          type: 'checkout-not-held',
          nonRetryable: true,
          message: `this worker does not hold checkout ${id} (start a worker with --kb naming that checkout)`,
        });
      }
      return kind === 'checkout' ? checkout.root : checkout.worktrees;
    });
  }

  /** One pattern over every root, longest first, checkouts before the rest (a state directory or the package may hold a checkout, and the checkout's token is the one every host reads alike). */
  private portablePattern(): { pattern: RegExp; tokens: Map<string, string> } {
    const longestFirst = (entries: (readonly [string, string])[]) => entries.sort((a, b) => b[0].length - a[0].length);
    const entries = [
      ...longestFirst(
        [...this.held.values()].flatMap((checkout) => [
          ...spellings(checkout.worktrees).map((dir) => [dir, worktreesRoot(checkout.id)] as const),
          ...spellings(checkout.root).map((dir) => [dir, checkoutRoot(checkout.id)] as const),
        ]),
      ),
      ...longestFirst(this.options.stateDir === undefined ? [] : spellings(this.options.stateDir).map((dir) => [dir, STATE_ROOT] as const)),
      ...longestFirst(spellings(this.options.packageRoot ?? packageRoot()).map((dir) => [dir, PACKAGE_ROOT] as const)),
    ];
    const tokens = new Map<string, string>();
    for (const [dir, token] of entries) if (dir !== '/' && !tokens.has(dir)) tokens.set(dir, token);
    const pattern = new RegExp(`(?:${[...tokens.keys()].map(escape).join('|')})(?![A-Za-z0-9._~+-])`, 'g');
    return { pattern, tokens };
  }
}

/** The value with every string (object keys included) passed through `map`. */
function mapStrings(value: unknown, map: (text: string) => string): unknown {
  if (typeof value === 'string') return map(value);
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, map));
  if (value instanceof Uint8Array || value === null || typeof value !== 'object') return value;
  if (Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null) return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [map(key), mapStrings(item, map)]));
}

/** The error with this host's paths written from their tokens in its message, stack and details, as it enters the history. */
export function portableError(error: unknown, places: HostPlaces): unknown {
  if (!(error instanceof Error)) return error;
  error.message = places.portableText(error.message);
  if (error.stack !== undefined) error.stack = places.portableText(error.stack);
  if (error instanceof ApplicationFailure && error.details) {
    Object.defineProperty(error, 'details', { value: places.toPortable(error.details), configurable: true, writable: true, enumerable: true });
  }
  if (error.cause !== undefined) portableError(error.cause, places);
  return error;
}
