/**
 * Every activity heartbeats while it runs, so a worker that dies is noticed within the heartbeat
 * timeout the workflows set (at most 30 s), not at the start-to-close timeout. The launch activity
 * heartbeats itself, with the worker's last action as details; the others get a steady beat here.
 */
import { Context } from '@temporalio/activity';

/** How often a running activity heartbeats; well inside the 30 s heartbeat timeouts. */
export const HEARTBEAT_EVERY_MS = 5_000;

type AnyActivity = (...args: never[]) => Promise<unknown>;

/** The activity, heartbeating every few seconds while it runs inside an activity context (a direct call runs it as it is). */
export function heartbeating<F extends AnyActivity>(activity: F): F {
  const wrapped = async (...args: Parameters<F>) => {
    let context: Context;
    try {
      context = Context.current();
    } catch {
      return activity(...args);
    }
    context.heartbeat();
    const timer = setInterval(() => context.heartbeat(), HEARTBEAT_EVERY_MS);
    try {
      return await activity(...args);
    } finally {
      clearInterval(timer);
    }
  };
  return wrapped as F;
}

/** Every activity of a set heartbeating, except those that heartbeat themselves. */
export function allHeartbeating<T extends Record<string, AnyActivity>>(activities: T, own: readonly (keyof T)[] = []): T {
  return Object.fromEntries(Object.entries(activities).map(([name, activity]) => [name, own.includes(name) ? activity : heartbeating(activity)])) as T;
}
