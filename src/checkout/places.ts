/**
 * Places: how workflow data names a file without naming a host.
 *
 * A path in a workflow's input, an activity's input or result, or a failure message is written from
 * one of four roots, each a token no host path can be mistaken for:
 *
 * - `<checkout:ID>/…`  — inside the KB checkout whose checkout ID is ID (`<checkout:ab12cd34>/kb/notes/x.md`);
 * - `<worktrees:ID>/…` — inside that checkout's run worktrees (the analysis runs' Git worktrees);
 * - `<state>/…`        — inside the state directory of whichever worker runs the activity (a review launch);
 * - `<package>/…`      — inside the installed commonplace package (the fake harness, the CLI itself).
 *
 * A worker turns tokens into its own absolute paths as an activity starts and its own paths back into
 * tokens as the activity returns or fails (`HostPlaces`, ./index.ts), so no absolute host path enters a
 * history. An activity whose input names a checkout (its checkout or worktrees root) runs on that
 * checkout's task queue, where only workers that hold the checkout poll (src/workflows/interceptors.ts);
 * an activity that names none runs on the shared queue, on any worker.
 *
 * Pure string code (no Node built-ins): the one part of src/checkout/ workflow code imports, to route by it.
 */
import { TASK_QUEUE } from '../search-attributes.js';

/** A checkout ID: eight hex digits, derived once from the checkout's real path (./index.ts). */
export const CHECKOUT_ID = /^[0-9a-f]{8}$/;

/** Whether `text` has the form of a checkout ID. */
export const looksLikeCheckoutId = (text: string) => CHECKOUT_ID.test(text);

/** The checkout's root as workflow data names it. */
export const checkoutRoot = (id: string): string => `<checkout:${id}>`;

/** The checkout's run worktrees' root as workflow data names it. */
export const worktreesRoot = (id: string): string => `<worktrees:${id}>`;

/** The executing worker's own state directory. */
export const STATE_ROOT = '<state>';

/** The installed package's root on the executing worker. */
export const PACKAGE_ROOT = '<package>';

/** The task queue the workers that hold a checkout poll, besides the shared one. */
export const checkoutQueue = (id: string): string => `${TASK_QUEUE}/checkout/${id}`;

/** A checkout reference's ID (`<checkout:ab12cd34>` → `ab12cd34`), or undefined for anything else. */
export function checkoutIdOf(reference: string): string | undefined {
  const match = /^<checkout:([0-9a-f]{8})>$/.exec(reference);
  return match?.[1];
}

/** Whether a path is written from a place root rather than as a host path. */
export function isPlace(path: string): boolean {
  return /^<(?:checkout:[0-9a-f]{8}|worktrees:[0-9a-f]{8}|state|package)>(?:\/|$)/.test(path);
}

/** The checkout a path value is written from (`<checkout:ID>/…`, `<worktrees:ID>/…`), or undefined: text that merely mentions a token names nothing. */
export function checkoutOfPath(value: string): string | undefined {
  return /^<(?:checkout|worktrees):([0-9a-f]{8})>(?:\/|$)/.exec(value)?.[1];
}

/** The first checkout a value's path strings are written from, searched depth first. */
function checkoutIn(value: unknown): string | undefined {
  if (typeof value === 'string') return value.startsWith('<') ? checkoutOfPath(value) : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  for (const item of Object.values(value)) {
    const found = checkoutIn(item);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** The task queue for an activity whose input is `args`: the queue of the checkout a path in it is written from, else undefined (the shared queue). */
export function queueForActivity(args: unknown[]): string | undefined {
  const id = checkoutIn(args);
  return id === undefined ? undefined : checkoutQueue(id);
}
