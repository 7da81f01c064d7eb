// The quota tests' sweep: one corpus note's framing-mismatch gate on the fake profile, auto-resumed, and the
// quota gate of its account; and what they read back of a history's timers.
import type { temporal } from '@temporalio/proto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { quotaAccount } from '../../src/runs/quota.js';
import { quotaGateId, sweepWorkflowId } from '../../src/runs/workflow-ids.js';
import { fakeSweep, type FakeSweepOptions, type Rules } from './sweep.js';

/** A usage limit as claude reports it, resetting at `resetEpoch` (seconds), or without a reset time. */
export const usageLimit = (resetEpoch?: number) => ({ usageLimit: `Claude AI usage limit reached${resetEpoch === undefined ? '' : `|${resetEpoch}`}` });

/**
 * An auto-resumed sweep of the fake profile (one corpus note's framing-mismatch gate unless told otherwise) and its account's
 * quota gate. Its input is a scheduled sweep's: no run ID, which the workflow takes from `workflowId`.
 */
export async function quotaSweep(env: TestWorkflowEnvironment, rules: Rules, options: FakeSweepOptions = {}) {
  const sweep = await fakeSweep(rules, { gates: ['sentence/framing-mismatch'], ...options });
  const { runId, ...input } = sweep.input({ autoResume: true });
  const account = quotaAccount({ name: 'fake', harness: 'fake', env: sweep.fakeEnv });
  return { ...sweep, input, runId, workflowId: sweepWorkflowId(runId), account, gate: env.client.workflow.getHandle(quotaGateId(account)) };
}

type History = temporal.api.history.v1.IHistory;

/** An event's time in milliseconds. */
export const eventMs = (time: { seconds?: unknown; nanos?: number | null } | null | undefined) =>
  Number(time?.seconds ?? 0) * 1000 + Math.floor((time?.nanos ?? 0) / 1e6);

/** The milliseconds from a history's first timer started to its first timer fired (NaN if none fired). */
export function firstTimerMs({ events }: History): number {
  const started = events?.find((event) => event.timerStartedEventAttributes);
  const fired = events?.find((event) => event.timerFiredEventAttributes);
  return fired ? eventMs(fired.eventTime) - eventMs(started?.eventTime) : NaN;
}

/** Whether an Update was accepted in the history: a run an operator resumed, not one that went on by itself. */
export const resumedByUpdate = ({ events }: History) => (events ?? []).some((event) => event.workflowExecutionUpdateAcceptedEventAttributes);
