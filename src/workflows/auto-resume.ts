/** The auto-resume timer of a usage-limit stop, woken early when the operator opens the account's quota gate. */
import { condition } from '@temporalio/workflow';
import { STOP_RULES, type Stop } from '../runs/stop.js';
import { autoResumed, autoResumeWait, quotaReopened, quotaVersion, watchQuotaGate } from './quota-gate-client.js';

export type AutoResumeTimer = { waitMs: number; summary: string };

/** The timer a stop waits on before the run goes on by itself, or undefined when only the operator resumes it. */
export function autoResumeTimer(autoResume: boolean, stop: Stop): AutoResumeTimer | undefined {
  return autoResume && STOP_RULES[stop.kind].timer && stop.kind === 'usage-limit' ? autoResumeWait(stop) : undefined;
}

export interface Resumable {
  resumed: () => boolean;
  stillStopped: () => boolean;
  take: () => Promise<void>;
}

/** At the reset (or the probe), or as soon as the account's gate opens, the run resumes by itself unless a resume got there first. */
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
