/**
 * A run's side of the quota gates: it subscribes once per account and keeps a copy the gate signals current, so every later launch
 * consults it at no history cost. The state here is the run's own: each workflow execution has its own module instance.
 */
import { isCancellation, log, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { AskOutcome, LaunchInput } from '../harness/launch-contract.js';
import { describeQuota, isClosed, newer, probeBackoffMs, PROBE_BACKOFF_MS, quotaAccount, RESET_MARGIN_MS, type QuotaState } from '../runs/quota.js';
import type { Stop, StopOf } from '../runs/stop.js';
import { CommonplaceKind } from '../search-attributes.js';
import { quotaChangedSignal } from './quota-gate.js';

const { quotaSubscribe, quotaLimit, quotaOpen } = proxyActivities<Activities>({
  startToCloseTimeout: '1m',
  heartbeatTimeout: '30s',
  retry: { maximumAttempts: 10 },
});

const copies = new Map<string, QuotaState>();
/** Concurrent first launches wait on the one subscription. */
const subscriptions = new Map<string, Promise<void>>();
let listening = false;

/** Auto-resume probes of the lifecycle's own (a stop without the gate's probe time). */
const ownProbes = { step: 0, resumedAt: undefined as number | undefined };

function merge(state: QuotaState | undefined): void {
  if (state !== undefined) copies.set(state.account, newer(copies.get(state.account), state));
}

/** An unreachable gate must not fail the run: it launches, and stops on the limits its own launches meet. */
async function unlessUnreachable(what: string, call: () => Promise<QuotaState>): Promise<QuotaState | undefined> {
  try {
    return await call();
  } catch (error) {
    if (isCancellation(error)) throw error;
    log.warn(`quota gate unreachable (${what}); going on without it`, { error: String(error) });
    return undefined;
  }
}

function gateRequest(account: string) {
  return { account, workflowId: workflowInfo().workflowId, searchAttributes: workflowInfo().typedSearchAttributes.get(CommonplaceKind) !== undefined };
}

function subscribed(account: string): Promise<void> {
  if (!listening) {
    listening = true;
    setHandler(quotaChangedSignal, merge);
  }
  let subscription = subscriptions.get(account);
  if (subscription === undefined) {
    subscription = unlessUnreachable(`subscribe to ${account}`, () =>
      quotaSubscribe.executeWithOptions({ summary: `subscribe to the quota gate of ${account}` }, [gateRequest(account)]),
    ).then(merge);
    subscriptions.set(account, subscription);
  }
  return subscription;
}

function closedOutcome(state: QuotaState, input: LaunchInput): AskOutcome {
  const reason = `not launched (${input.launchId}): the quota gate of ${state.account} is ${describeQuota(state)}`;
  return {
    status: 'usage-limit',
    reason,
    harness: input.profile.harness,
    resetAt: state.status === 'closed-until' ? state.resetAt : null,
    account: state.account,
    ...(state.status === 'closed-unknown' && { probeAt: state.probeAt }),
  };
}

/** Before a launch: a closed gate answers the usage limit to stop on; undefined means launch. */
export async function consultQuotaGate(input: LaunchInput): Promise<AskOutcome | undefined> {
  const account = quotaAccount(input.profile);
  await subscribed(account);
  const state = copies.get(account);
  return state !== undefined && isClosed(state, Date.now()) ? closedOutcome(state, input) : undefined;
}

/** Closes the account's gate for every run on it, and answers the outcome with what the gate knows (a later reset, or its probe time). */
export async function reportUsageLimit(input: LaunchInput, outcome: Extract<AskOutcome, { status: 'usage-limit' }>): Promise<AskOutcome> {
  const account = quotaAccount(input.profile);
  await subscribed(account);
  merge(
    await unlessUnreachable(`report a limit to ${account}`, () =>
      quotaLimit.executeWithOptions({ summary: `report a usage limit to the quota gate of ${account}` }, [
        { ...gateRequest(account), report: { reason: outcome.reason, launchId: input.launchId, resetAt: outcome.resetAt } },
      ]),
    ),
  );
  const current = copies.get(account);
  if (current === undefined) return { ...outcome, account };
  return {
    ...outcome,
    account,
    ...(outcome.resetAt === null && current.status === 'closed-until' && { resetAt: current.resetAt }),
    ...(outcome.resetAt === null && current.status === 'closed-unknown' && { probeAt: current.probeAt }),
  };
}

/** The version of the run's copy of the stop's gate (-1 when it has none), to tell when the gate opened since. */
export function quotaVersion(stop: Stop): number {
  return stop.kind === 'usage-limit' && stop.account !== undefined ? (copies.get(stop.account)?.version ?? -1) : -1;
}

/** Whether the operator opened the stop's gate since version `seen`; a reset or probe needs no signal (the run's timer goes off with the gate's). */
export function quotaReopened(stop: Stop, seen: number): boolean {
  if (stop.kind !== 'usage-limit' || stop.account === undefined) return false;
  const state = copies.get(stop.account);
  return state !== undefined && state.version > seen && state.status === 'open' && state.openedBy === 'operator';
}

/** A minute past a known reset; else until the gate's probe; else the lifecycle's own backoff (15, 30, then 60 min) while probes meet the limit. */
export function autoResumeWait(stop: StopOf<'usage-limit'>): { waitMs: number; summary: string } {
  const resetAt = stop.resetAt ? Date.parse(stop.resetAt) : NaN;
  if (Number.isFinite(resetAt))
    return { waitMs: Math.max(0, resetAt - Date.now()) + RESET_MARGIN_MS, summary: `resume after the usage limit resets (${stop.resetAt})` };
  const probeAt = stop.probeAt ? Date.parse(stop.probeAt) : NaN;
  if (Number.isFinite(probeAt))
    return { waitMs: Math.max(0, probeAt - Date.now()), summary: `resume to probe the usage limit (no reset time; the gate probes at ${stop.probeAt})` };
  const cap = PROBE_BACKOFF_MS[PROBE_BACKOFF_MS.length - 1] as number;
  const afterProbe = ownProbes.resumedAt !== undefined && Date.now() - ownProbes.resumedAt < cap;
  ownProbes.step = afterProbe ? ownProbes.step + 1 : 1;
  const waitMs = probeBackoffMs(ownProbes.step);
  return { waitMs, summary: `resume to probe the usage limit (no reset time; probe ${ownProbes.step}, after ${waitMs / 60_000} min)` };
}

/** The auto-resume timer went off for a usage-limit stop (the lifecycle's own backoff counts from here). */
export function autoResumed(): void {
  ownProbes.resumedAt = Date.now();
}

/** Subscribes a run that stops on a gate it never launched on (a sweep, stopped by its batch) so the gate's opening wakes it. */
export async function watchQuotaGate(stop: Stop): Promise<void> {
  if (stop.kind !== 'usage-limit' || stop.account === undefined) return;
  await subscribed(stop.account);
}

/** An operator's resume says the account may be tried now, so the gate opens for every run on it. */
export async function openQuotaGates(stops: readonly Stop[]): Promise<void> {
  const accounts = new Set(stops.flatMap((stop) => (stop.kind === 'usage-limit' && stop.account !== undefined ? [stop.account] : [])));
  if (accounts.size === 0) return;
  for (const account of accounts)
    merge(
      await unlessUnreachable(`open ${account}`, () => quotaOpen.executeWithOptions({ summary: `open the quota gate of ${account}` }, [gateRequest(account)])),
    );
}
