/**
 * The places one host knows (src/places.ts): the checkouts it holds, with their run worktrees, its
 * state directory and the installed package. A worker holds the checkouts it is told of
 * (`commonplace worker --kb DIR`); a client knows the one checkout its command names.
 *
 * `toHost` turns the tokens of workflow data into this host's absolute paths as an activity starts;
 * `toPortable` turns this host's absolute paths back into tokens as the activity returns or fails, so
 * a history never carries a host path. Both walk strings anywhere in a value (keys included).
 */
import { ApplicationFailure } from '@temporalio/common';
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { defaultWorktreesRoot } from './analysis/run-dir.js';
import { checkoutId, knownCheckoutId } from './kb/checkout-id.js';
import { findCheckout } from './kb/checkout.js';
import { packageRoot } from './paths.js';
import { checkoutRoot, PACKAGE_ROOT, STATE_ROOT, worktreesRoot } from './places.js';

export interface HeldCheckout {
  id: string;
  /** The checkout root on this host. */
  root: string;
  /** Where its run worktrees go on this host. */
  worktrees: string;
}

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

/**
 * The checkout a directory names, with its ID: the recorded one, or one derived now and recorded, so a
 * worker that sees the checkout at another path (a container's `/kb`) and the CLI on the host agree on
 * it whichever comes first. A checkout the worker cannot write keeps the derived ID unrecorded.
 */
export async function checkoutAt(dir: string, worktrees?: string): Promise<HeldCheckout> {
  const { root } = findCheckout(process.cwd(), dir);
  const id = await checkoutId(root).catch(() => knownCheckoutId(root));
  return { id, root, worktrees: path.resolve(worktrees ?? defaultWorktreesRoot(root)) };
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
      // A token inside other text (a note quoting one) names no path this activity needs: it is left as written.
      if (!checkout && !text.startsWith(token)) return token;
      if (!checkout) {
        throw ApplicationFailure.create({
          type: 'checkout-not-held',
          nonRetryable: true,
          message: `this worker does not hold checkout ${id} (start a worker with --kb naming that checkout)`,
        });
      }
      return kind === 'checkout' ? checkout.root : checkout.worktrees;
    });
  }

  /** One pattern over every root, checkouts first (a state directory or the package may hold a checkout, and the checkout's token is the one every host reads alike). */
  private portablePattern(): { pattern: RegExp; tokens: Map<string, string> } {
    const tokens = new Map<string, string>();
    const ordered: string[] = [];
    const add = (dirs: string[], token: string) => {
      for (const dir of dirs.sort((a, b) => b.length - a.length)) {
        if (dir === '/' || tokens.has(dir)) continue;
        tokens.set(dir, token);
        ordered.push(dir);
      }
    };
    const checkouts = [...this.held.values()].flatMap((checkout) => [
      ...spellings(checkout.worktrees).map((dir) => [dir, worktreesRoot(checkout.id)] as const),
      ...spellings(checkout.root).map((dir) => [dir, checkoutRoot(checkout.id)] as const),
    ]);
    for (const [dir, token] of checkouts.sort((a, b) => b[0].length - a[0].length)) add([dir], token);
    if (this.options.stateDir !== undefined) add(spellings(this.options.stateDir), STATE_ROOT);
    add(spellings(this.options.packageRoot ?? packageRoot()), PACKAGE_ROOT);
    const pattern = new RegExp(`(?:${ordered.map(escape).join('|')})(?![A-Za-z0-9._~+-])`, 'g');
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
