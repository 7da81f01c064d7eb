/**
 * The lifecycle's quota plumbing: the auto-resume timer of a usage-limit stop (to a minute past the
 * reset, or to the account's gate's probe), woken early when the operator opens the account's quota
 * gate, and the gates an operator's resume opens (quota-gate-client.ts keeps the run's copies).
 */
import { condition } from '@temporalio/workflow';
import { STOP_RULES, type Stop } from '../runs/stop.js';
import { autoResumed, autoResumeWait, quotaReopened, quotaVersion, watchQuotaGate } from './quota-gate-client.js';

/** A stop's auto-resume timer: only a run that auto-resumes, and only for a stop whose rule has one (a usage limit). */
export type AutoResumeTimer = { waitMs: number; summary: string };

/** The timer a stop waits on before the run goes on by itself, or undefined when only the operator resumes it. */
export function autoResumeTimer(autoResume: boolean, stop: Stop): AutoResumeTimer | undefined {
  return autoResume && STOP_RULES[stop.kind].timer && stop.kind === 'usage-limit' ? autoResumeWait(stop) : undefined;
}

/** The lifecycle as the timer sees it: whether a resume came first, whether the stop is still there to resume, and how to resume. */
export interface Resumable {
  resumed: () => boolean;
  stillStopped: () => boolean;
  take: () => Promise<void>;
}

/**
 * Waits out the timer: at the reset (or the probe), or as soon as the account's quota gate opens,
 * the run resumes by itself — unless a resume got there first.
 */
export async function autoResume(stop: Stop, timer: AutoResumeTimer, run: Resumable): Promise<void> {
  await watchQuotaGate(stop);
  const gate = quotaVersion(stop);
  await condition(() => run.resumed() || quotaReopened(stop, gate), timer.waitMs, { summary: timer.summary });
  if (run.resumed() || !run.stillStopped()) return;
  autoResumed();
  await run.take();
}

/** An operator's resume of a run stopped on a usage limit opens the account's quota gate: the account may be tried now, by every run on it. */
export { openQuotaGates } from './quota-gate-client.js';
