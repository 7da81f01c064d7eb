/**
 * One entity workflow per account (`quota/<account>`): a usage limit any launch sees closes it, and it signals every subscribed run
 * on each transition. A real account's gate never ends; a fake scenario's open gate ends once none of its runs is open, so a finished
 * test leaves no gate running. A closed gate never ends: it holds the reset every run on the account must wait for.
 */
import {
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  metricMeter,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  upsertMemo,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import { recordQuotaGate } from '../observability/metrics.js';
import { describeQuota, isScenarioAccount, limitSeen, openedByOperator, openGate, opensAt, timePassed, type QuotaState } from '../runs/quota.js';
import { runCommand, webUiCommand } from '../runs/run-commands.js';

const { openWorkflows } = proxyActivities<Activities>({ startToCloseTimeout: '5m', heartbeatTimeout: '30s', retry: { maximumAttempts: 3 } });

export interface QuotaGateInput {
  account: string;
  /** Carried across continue-as-new. */
  state?: QuotaState;
  subscribers?: string[];
  /** Events past which the gate continues as new (default 2,000; tests set it low). */
  historyBudget?: number;
  /** How long an open gate waits between checks of whether any subscribed run is still open (default 10 minutes). */
  idleMs?: number;
}

const idlePeriodMs = 10 * 60_000;

export type { QuotaGateView } from '../runs/quota.js';

import { webUiPlace } from './lifecycle-view.js';
import { limitSignal, openSignal, quotaChangedSignal, quotaStateQuery, subscribeSignal } from './messages.js';

export { limitSignal, openSignal, quotaChangedSignal, quotaStateQuery, subscribeSignal } from './messages.js';

/** Past this many events the gate prunes its subscribers and continues as new. */
const historyBudget = 2000;

export async function quotaGate(input: QuotaGateInput): Promise<void> {
  let state = input.state ?? openGate(input.account);
  // The version every subscriber was last sent (a carried state was sent before the run continued as new).
  let notified = state.version;
  const subscribers = new Set(input.subscribers ?? []);
  // The events this run has added, estimated from what it did (a signal and its workflow task: 4; a
  // notice: 2; a timer: 4): deterministic, unlike the history length a replay reports mid-way.
  let events = 4;
  setHandler(subscribeSignal, (workflowId) => {
    events += 4;
    subscribers.add(workflowId);
  });
  setHandler(limitSignal, (report) => {
    events += 4;
    // A closed gate whose time has come is open (its timer may not have gone off yet): the report is a probe's.
    state = limitSeen(timePassed(state, Date.now()), report, Date.now());
  });
  setHandler(openSignal, () => {
    events += 4;
    state = openedByOperator(state, Date.now());
  });
  setHandler(quotaStateQuery, () => ({ state, subscribers: subscribers.size }));
  // The state the metrics last showed: an opening adds the seconds since the closure it ends.
  let measured: QuotaState | undefined;
  const measure = () => {
    recordQuotaGate(metricMeter, measured, state, Date.now());
    measured = state;
  };
  show(state, subscribers.size);
  measure();
  const tooLong = () => events > (input.historyBudget ?? historyBudget);
  for (;;) {
    if (state.version === notified && !tooLong()) {
      const opens = opensAt(state);
      if (opens === undefined && isScenarioAccount(input.account)) {
        events += 4;
        const woken = await condition(() => state.version !== notified || tooLong(), input.idleMs ?? idlePeriodMs, {
          summary: 'check whether any subscribed run is still open',
        });
        if (!woken && (await noRunOpen(subscribers))) {
          events += 6;
          // A subscription or a transition that came in while the check was asked keeps the gate.
          if (subscribers.size === 0 && state.version === notified && state.status === 'open') {
            show(state, 0, 'ended: open, and no subscribed run is open (the next run on the account starts it again)');
            return;
          }
        }
      } else if (opens === undefined) {
        await condition(() => state.version !== notified || tooLong());
      } else {
        events += 4;
        const summary = state.status === 'closed-until' ? `open at the reset (${state.resetAt})` : `open for a probe (${new Date(opens).toISOString()})`;
        const woken = await condition(() => state.version !== notified || tooLong(), Math.max(0, opens - Date.now()), { summary });
        if (!woken) state = timePassed(state, Date.now());
      }
    }
    if (state.version !== notified) {
      const sent = state;
      events += 2 * subscribers.size + 2;
      await notify(sent, subscribers);
      notified = sent.version;
      show(state, subscribers.size);
      measure();
      continue;
    }
    if (tooLong()) {
      // Subscribers whose runs closed are dropped; those that subscribed while this was asked are kept.
      const asked = [...subscribers];
      const open = await openOf(asked);
      if (state.version !== notified) continue; // a transition came in meanwhile: its notice goes first
      const kept = [...subscribers].filter((workflowId) => open.has(workflowId) || !asked.includes(workflowId));
      await continueAsNew<typeof quotaGate>({ ...input, state, subscribers: kept });
    }
  }
}

/** Drops the subscribers whose runs have closed; whether none is left. */
async function noRunOpen(subscribers: Set<string>): Promise<boolean> {
  const asked = [...subscribers];
  const open = asked.length === 0 ? new Set<string>() : await openOf(asked);
  for (const workflowId of asked) if (!open.has(workflowId)) subscribers.delete(workflowId);
  return subscribers.size === 0;
}

const openOf = async (workflowIds: string[]) =>
  new Set(await openWorkflows.executeWithOptions({ summary: `check which of ${workflowIds.length} subscribed runs are still open` }, [{ workflowIds }]));

/** Signals every subscriber the new state; a subscriber that is gone (its run closed) is dropped. */
async function notify(state: QuotaState, subscribers: Set<string>): Promise<void> {
  await Promise.all(
    [...subscribers].map(async (workflowId) => {
      try {
        await getExternalWorkflowHandle(workflowId).signal(quotaChangedSignal, state);
      } catch {
        subscribers.delete(workflowId);
      }
    }),
  );
}

function show(state: QuotaState, subscribers: number, ended?: string): void {
  setCurrentDetails(
    [
      `**quota gate** ${state.account}: ${ended ?? describeQuota(state)}`,
      `${subscribers} run${subscribers === 1 ? '' : 's'} subscribed`,
      ...(state.status === 'open' ? [] : [`open it by hand: \`${webUiCommand(runCommand.quotaOpen(state.account), webUiPlace())}\``]),
    ].join('\n\n'),
  );
  upsertMemo({
    quota: {
      status: state.status,
      ...(state.status === 'closed-until' && { resetAt: state.resetAt }),
      ...(state.status === 'closed-unknown' && { probeAt: state.probeAt }),
      version: state.version,
    },
  });
}
