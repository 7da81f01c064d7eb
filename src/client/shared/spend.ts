/** `--max-cost` after it is read (shared/options.ts reads it): how a cap goes to a resume, and how spend prints. */
import { WorkflowUpdateFailedError, type QueryDefinition, type UpdateDefinition, type WorkflowHandle } from '@temporalio/client';
import { setTimeout as sleep } from 'node:timers/promises';
import type { LifecycleProgress, ResumeRequest } from '../../runs/stop.js';
import { spendLine, tokensLine, type SpendProgress } from '../../runs/spend.js';

/** The resume Update's argument: the new cap, when one was given. */
export function resumeRequest(maxCostUsd: number | undefined): ResumeRequest {
  return maxCostUsd === undefined ? {} : { maxCostUsd };
}

/**
 * Sends a stopped run the resume Update, with the new cap when given: undefined once the run goes on,
 * else the validator's refusal (a spend-limit stop without a higher cap), which leaves the run stopped.
 */
export async function sendResume<P>(
  handle: WorkflowHandle,
  update: UpdateDefinition<P, [ResumeRequest]>,
  maxCostUsd: number | undefined,
): Promise<string | undefined> {
  return handle.executeUpdate(update, { args: [resumeRequest(maxCostUsd)] }).then(
    () => undefined,
    (error: unknown) => {
      if (!(error instanceof WorkflowUpdateFailedError)) throw error;
      return error.cause?.message ?? error.message;
    },
  );
}

/** Said when `--max-cost` meets a run that is attached to, not started or resumed: the cap travels only with those. */
export function capNotApplied(maxCostUsd: number | undefined): string {
  return maxCostUsd === undefined ? '' : '; --max-cost is not applied: a cap is set when a run starts or resumes from a stop';
}

/** The lines a summary or `inspect` prints about what a run spent. */
export function spendLines(spend: SpendProgress | undefined, indent: string, labelWidth: number): string[] {
  if (spend === undefined) return [];
  return [
    `${indent}${'spent'.padEnd(labelWidth)}${spendLine(spend)} over ${spend.launches} launch${spend.launches === 1 ? '' : 'es'}`,
    `${indent}${'tokens'.padEnd(labelWidth)}${tokensLine(spend.tokens)}`,
  ];
}

/**
 * A run stopped at its spend cap, as it stands once the launches in flight at the stop have
 * reported: their cost counts against the cap, so the new cap printed (`nextStep`) must cover it, or
 * the command printed would be refused. Waits, saying so once, while any `launch` activity of the run
 * is pending; any other progress is returned as it is.
 */
export async function settledAtCap<P extends LifecycleProgress>(
  handle: WorkflowHandle,
  query: QueryDefinition<P>,
  progress: P,
  say: (line: string) => void,
): Promise<P> {
  if (!progress.stops.some((stop) => stop.kind === 'spend-limit')) return progress;
  let said = false;
  for (;;) {
    const inFlight = await launchesInFlight(handle);
    if (inFlight === 0) break;
    if (!said)
      say(
        `stopped at the spend cap; waiting for ${inFlight} launch${inFlight === 1 ? '' : 'es'} in flight to report what ${inFlight === 1 ? 'it' : 'they'} spent`,
      );
    said = true;
    await sleep(SETTLE_POLL_MS);
  }
  if (!said) return progress;
  const now = await handle.query(query).catch(() => progress);
  return { ...progress, ...(now.spend !== undefined && { spend: now.spend }) };
}

/** The run's pending `launch` activities; none when it cannot be described (closed, a blip). */
async function launchesInFlight(handle: WorkflowHandle): Promise<number> {
  const described = await handle.describe().catch(() => undefined);
  return (described?.raw.pendingActivities ?? []).filter((activity) => activity.activityType?.name === 'launch').length;
}

const SETTLE_POLL_MS = 500;
