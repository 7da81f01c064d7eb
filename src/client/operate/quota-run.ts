import type { Client } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/client';
import { RESET_MARGIN_MS, type QuotaStatus } from '../../runs/quota.js';
import { quotaAccountOf, quotaGateId } from '../../runs/workflow-ids.js';
import { openSignal } from '../../workflows/quota-gate.js';
import { connectClient } from '../shared/connection.js';
import { UserError } from '../shared/errors.js';
import { printJson } from '../shared/json-output.js';
import { runnable } from '../shared/command-line.js';

/** What a gate's memo says: written by the gate on every transition, so listing needs no worker. */
export interface QuotaMemo {
  status: QuotaStatus;
  resetAt?: string;
  probeAt?: string;
  version: number;
}

export interface QuotaGateRow {
  account: string;
  workflowId: string;
  quota: QuotaMemo | undefined;
}

export async function listQuotaGates(client: Client): Promise<QuotaGateRow[]> {
  const rows: QuotaGateRow[] = [];
  for await (const execution of client.workflow.list({ query: `WorkflowType = 'quotaGate' AND ExecutionStatus = 'Running'` })) {
    const memo = (await execution.memo) as { quota?: QuotaMemo } | undefined;
    rows.push({ account: quotaAccountOf(execution.workflowId), workflowId: execution.workflowId, quota: memo?.quota });
  }
  return rows.sort((a, b) => a.account.localeCompare(b.account));
}

/** Read against `now`: a reset whose time has come reads as reopening (a minute past it, `RESET_MARGIN_MS`), then as open, as runs count it. */
export function formatQuotaGates(rows: readonly QuotaGateRow[], now = Date.now()): string {
  if (rows.length === 0) return 'no quota gates: no launch has run on this namespace since the gates began';
  return rows
    .map((row) => {
      const quota = row.quota;
      if (quota === undefined) return `${row.account}  (state not recorded yet)`;
      if (quota.status === 'closed-until' && quota.resetAt !== undefined) {
        const reset = Date.parse(quota.resetAt);
        const opens = new Date(reset + RESET_MARGIN_MS).toISOString();
        if (reset + RESET_MARGIN_MS <= now) return `${row.account}  open (the limit reset at ${quota.resetAt})`;
        if (reset <= now) return `${row.account}  reopening: the limit reset at ${quota.resetAt}; the gate opens at ${opens}, a minute past it`;
        return `${row.account}  closed until ${quota.resetAt} (the gate opens at ${opens}, a minute past the reset)`;
      }
      if (quota.status === 'closed-unknown') {
        if (quota.probeAt !== undefined && Date.parse(quota.probeAt) <= now) return `${row.account}  open for a probe since ${quota.probeAt} (reset unknown)`;
        return `${row.account}  closed, reset unknown: probes at ${quota.probeAt}`;
      }
      return `${row.account}  open`;
    })
    .join('\n');
}

/** Opens an account's gate by hand: every run on it may launch again (auto-resumed runs go on at once). */
export async function openQuotaGate(client: Client, account: string): Promise<void> {
  try {
    await client.workflow.getHandle(quotaGateId(account)).signal(openSignal, 'commonplace quota open');
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) throw new UserError(`there is no quota gate for ${account} (\`${runnable('commonplace quota')}\` lists them)`);
    throw error;
  }
}

/** `commonplace quota`: the gates, as lines or the `quota-gates` document. */
export async function runQuotaList(options: { json?: boolean }): Promise<void> {
  const rows = await listQuotaGates(await connectClient());
  if (options.json) {
    printJson('quota-gates', 1, {
      gates: rows.map((row) => ({ account: row.account, workflowId: row.workflowId, ...(row.quota !== undefined && { quota: row.quota }) })),
    });
    return;
  }
  process.stdout.write(`${formatQuotaGates(rows)}\n`);
}

/** `commonplace quota open ACCOUNT`: signals the gate open; an unknown account is exit 1. */
export async function runQuotaOpen(account: string, options: { json?: boolean }): Promise<void> {
  if (account.trim() === '') throw new UserError('quota open needs an account such as claude/team (`commonplace quota` lists them)');
  await openQuotaGate(await connectClient(), account);
  if (options.json) printJson('quota-opened', 1, { account, workflowId: quotaGateId(account) });
  else process.stdout.write(`opened the quota gate of ${account}\n`);
}
