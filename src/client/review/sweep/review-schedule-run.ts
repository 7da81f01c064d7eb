/** The actions of `review schedule …`: create, list and change the Temporal Schedules that start gate sweeps. */
import { memoInWords } from '../../../place-words.js';
import { ScheduleNotFoundError, ScheduleOverlapPolicy, type Client, type ScheduleHandle } from '@temporalio/client';
import type { SweepInput } from '../../../review/sweep-types.js';
import { startingAttributes, TASK_QUEUE } from '../../../search-attributes.js';
import { gateSweep } from '../../../workflows/gate-sweep.js';
import { openCheckout } from '../../../checkout/index.js';
import { connectClient } from '../../shared/connection.js';
import { requireSearchAttributes } from '../../shared/preflight.js';
import { rootMessage, UserError } from '../../shared/errors.js';
import { printJson } from '../../shared/json-output.js';
import { knowCheckoutHere, portable, warnUnheld } from '../../shared/checkout.js';
import { rendered as shown } from '../../shared/render-paths.js';
import { OVERLAP_POLICIES } from './sweep-options.js';
import { parseSweepCommand, type SweepCommandOptions } from './sweep-request.js';
import { checkSweepInput, sweepDetails, sweepIdentity } from '../shared/sweep-start.js';
import { markdownText } from '../../../runs/run-details.js';
import { runnable } from '../../shared/command-line.js';
import { scheduledSweepRunId, scheduleNameOf, sweepScheduleId, sweepWorkflowId } from '../../../runs/workflow-ids.js';

export type ScheduleCreateOptions = SweepCommandOptions & { every?: string; cron?: string; overlap: string; paused?: boolean };
export type ScheduleVerb = 'pause' | 'unpause' | 'trigger' | 'delete';

const overlapPolicies: Record<(typeof OVERLAP_POLICIES)[number], ScheduleOverlapPolicy> = {
  skip: ScheduleOverlapPolicy.SKIP,
  'buffer-one': ScheduleOverlapPolicy.BUFFER_ONE,
  'buffer-all': ScheduleOverlapPolicy.BUFFER_ALL,
  'cancel-other': ScheduleOverlapPolicy.CANCEL_OTHER,
  'terminate-other': ScheduleOverlapPolicy.TERMINATE_OTHER,
  'allow-all': ScheduleOverlapPolicy.ALLOW_ALL,
};

/**
 * The workflow ID a schedule starts its sweeps under (Temporal appends the start time): a sweep of
 * the checkout (`gates/GS-<checkout>-…`), so "is a sweep of this checkout open?" counts it and a
 * manual sweep is refused while a scheduled one runs, naming it.
 */
export const scheduledWorkflowId = (checkout: string, name: string, namespace?: string) => sweepWorkflowId(scheduledSweepRunId(checkout, name, namespace));

function checkName(name: string): string {
  if (!/^[a-z0-9][a-z0-9-]*$/.test(name)) throw new UserError(`schedule name "${name}" must be lowercase letters, digits and hyphens`);
  return name;
}

/** An interval as an operator writes it (`24h`, `30m`, `90s`), from the milliseconds the server returns. */
export function asWritten(every: unknown): string {
  const ms = Number(every);
  if (!Number.isFinite(ms) || ms <= 0) return String(every);
  const unit = (
    [
      ['h', 3_600_000],
      ['m', 60_000],
      ['s', 1000],
    ] as const
  ).find(([, size]) => ms % size === 0);
  return unit ? `${ms / unit[1]}${unit[0]}` : `${ms}ms`;
}

/** The checkout a schedule's sweeps run on, as its action records it. */
async function scheduledCheckout(handle: ScheduleHandle): Promise<string | undefined> {
  const described = await handle.describe();
  const action = described.action as { args?: unknown[] };
  return (action.args?.[0] as { checkout?: string } | undefined)?.checkout;
}

async function existing(client: Client, name: string): Promise<ScheduleHandle> {
  const handle = client.schedule.getHandle(sweepScheduleId(name));
  try {
    await handle.describe();
  } catch (error) {
    if (error instanceof ScheduleNotFoundError)
      throw new UserError(`no schedule ${name} (Temporal schedule ${sweepScheduleId(name)}); see \`${runnable('commonplace review schedule list')}\``);
    throw error;
  }
  return handle;
}

/** A cron expression as Temporal reads one: five to seven fields of cron characters, or a descriptor; the server checks the values. */
function cronShaped(cron: string): boolean {
  if (/^@(yearly|annually|monthly|weekly|daily|midnight|hourly)$/.test(cron.trim()) || /^@every \S+$/.test(cron.trim())) return true;
  const fields = cron.trim().split(/\s+/);
  return fields.length >= 5 && fields.length <= 7 && fields.every((field) => /^[\d*/,?LW#A-Za-z-]+$/.test(field));
}

/** What `review schedule create` asks for, read once: the name, when, the overlap policy and the sweep's input. */
interface ScheduleRequest {
  name: string;
  every?: string;
  cron?: string;
  overlap: ScheduleOverlapPolicy;
  input: SweepInput;
}

/** The options of `review schedule create`, each checked in turn (the first bad one is the message), the checkout resolved once. */
function parseScheduleCommand(name: string, options: ScheduleCreateOptions): ScheduleRequest {
  checkName(name);
  if (!options.every === !options.cron) throw new UserError('give exactly one of --every INTERVAL or --cron EXPR');
  if (options.every !== undefined && !/^\d+(\.\d+)?\s*(ms|s|m|h|d)$/.test(options.every))
    throw new UserError(`--every must be an interval such as 24h, 30m or 90s, got "${options.every}"`);
  if (options.every !== undefined && parseFloat(options.every) === 0)
    throw new UserError(`--every must be longer than nothing (an interval such as 24h, 30m or 90s), got "${options.every}"`);
  if (options.cron !== undefined && !cronShaped(options.cron)) {
    throw new UserError(
      `--cron must be a cron expression of five fields (minute hour day-of-month month day-of-week) such as "0 3 * * *", or @daily, @hourly, …, got "${options.cron}"`,
    );
  }
  const overlap = overlapPolicies[options.overlap as keyof typeof overlapPolicies];
  if (overlap === undefined) throw new UserError(`--overlap must be one of ${OVERLAP_POLICIES.join(', ')}, got "${options.overlap}"`);
  // Its sweeps resume by themselves after a usage limit with a known reset time.
  const input = parseSweepCommand(options, { autoResume: true, batch: 'auto' });
  return { name, overlap, input, ...(options.every !== undefined && { every: options.every }), ...(options.cron !== undefined && { cron: options.cron }) };
}

/** `review schedule create NAME`: every option is checked before the server is asked; the sweep's input is recorded in the schedule's action. */
export async function runScheduleCreate(name: string, options: ScheduleCreateOptions): Promise<void> {
  const request = parseScheduleCommand(name, options);
  const given = request.input;
  const overlap = request.overlap;
  await checkSweepInput(given);
  const client = await connectClient();
  await requireSearchAttributes(client);
  const checkout = await openCheckout(given.checkout);
  // The schedule's action names the checkout by its ID and paths relative to it, like every workflow input.
  const input = await portable(given, given.checkout);
  await warnUnheld(client, given.checkout);
  const when = options.every ? `every ${options.every}` : `cron ${options.cron}`;
  await client.schedule
    .create({
      scheduleId: sweepScheduleId(name),
      spec: options.every ? { intervals: [{ every: options.every as `${number}h` }] } : { cronExpressions: [options.cron!] },
      policies: { overlap },
      state: { paused: options.paused ?? false, note: `created by commonplace review schedule create ${name}` },
      action: {
        type: 'startWorkflow',
        workflowType: gateSweep,
        workflowId: scheduledWorkflowId(checkout, name, client.options.namespace),
        taskQueue: TASK_QUEUE,
        args: [input],
        memo: memoInWords({ identity: sweepIdentity(input, client.options.namespace), input, schedule: name, checkoutId: checkout }),
        staticSummary: markdownText(
          `scheduled gate sweep ${name}: ${input.notes.join(' ') || 'all notes'} × ${input.gates.join(' ') || 'all gates'} (${input.grouping}, ${input.profile})`,
        ),
        staticDetails: sweepDetails(`scheduled gate sweep ${name}`, input, [['schedule', `${name} (${when}, overlap ${options.overlap})`]]),
        typedSearchAttributes: startingAttributes('gates', `schedule ${name}`, input.profile),
      },
    })
    .catch(async (error: Error) => {
      // The server checks the values of a spec (a minute of 61, say): its refusal names the flag.
      if ((error as { code?: unknown }).code === 3 || /INVALID_ARGUMENT/.test(error.message))
        throw new UserError(`${options.every ? `--every ${options.every}` : `--cron "${options.cron}"`}: ${rootMessage(error)}`);
      if (!/already/i.test(error.message)) throw error;
      const owner = await scheduledCheckout(client.schedule.getHandle(sweepScheduleId(name))).catch(() => undefined);
      throw new UserError(
        `schedule ${name} exists${owner ? ` (it sweeps ${shown(owner)})` : ''}; schedule names are one per namespace: delete it first or pick another name`,
      );
    });
  if (options.json) {
    printJson('schedule-changed', 1, {
      action: 'created',
      name,
      scheduleId: sweepScheduleId(name),
      checkout: given.checkout,
      spec: when,
      overlap: options.overlap,
      paused: options.paused ?? false,
    });
    return;
  }
  process.stdout.write(
    `created schedule ${name} (Temporal schedule ${sweepScheduleId(name)}), ${when}, overlap ${options.overlap}${options.paused ? ', paused' : ''}\n`,
  );
}

/** One schedule as `list` reports it. */
export interface ScheduleRow {
  name: string;
  scheduleId: string;
  checkout: string | null;
  spec: string;
  paused: boolean;
  note: string;
  overlap: string;
  nextRun: string | null;
  recent: string[];
  running: string[];
  skipped: number;
}

/** `review schedule list`: the sweep schedules of the namespace. */
export async function runScheduleList(options: { json?: boolean }): Promise<void> {
  // A schedule of the checkout this command runs in shows its path; others show their checkout's ID.
  await knowCheckoutHere(undefined);
  const client = await connectClient();
  const rows: ScheduleRow[] = [];
  for await (const summary of client.schedule.list()) {
    const name = scheduleNameOf(summary.scheduleId);
    if (name === undefined) continue;
    const described = await client.schedule.getHandle(summary.scheduleId).describe();
    const intervals = (described.spec.intervals ?? []).map((interval) => `every ${asWritten(interval.every)}`);
    const spec = intervals.length > 0 ? intervals.join(', ') : 'cron';
    rows.push({
      name,
      scheduleId: summary.scheduleId,
      checkout: (described.action as { args?: { checkout?: string }[] }).args?.[0]?.checkout ?? null,
      spec,
      paused: described.state.paused,
      note: described.state.note ?? '',
      overlap: String(described.policies.overlap).toLowerCase().replace(/_/g, '-'),
      nextRun: described.info.nextActionTimes[0]?.toISOString() ?? null,
      recent: described.info.recentActions.slice(-3).map((recent) => recent.action.workflow.workflowId),
      running: described.info.runningActions.map((running) => running.workflow.workflowId),
      skipped: described.info.numActionsSkippedOverlap,
    });
  }
  if (options.json) {
    printJson('schedule-list', 1, { schedules: rows });
    return;
  }
  if (rows.length === 0) process.stdout.write('no sweep schedules\n');
  for (const row of rows) {
    process.stdout.write(
      `${row.name}: ${row.spec}, ${row.paused ? 'paused' : 'active'}, ${row.checkout === null ? 'checkout unknown' : shown(row.checkout)}, overlap ${row.overlap}, next ${row.nextRun ?? '-'}, running ${row.running.join(' ') || 'none'}, skipped ${row.skipped}\n`,
    );
  }
}

const done: Record<ScheduleVerb, string> = { pause: 'paused', unpause: 'unpaused', trigger: 'triggered', delete: 'deleted' };

/** `review schedule pause|unpause|trigger|delete NAME`. */
export async function runScheduleChange(verb: ScheduleVerb, name: string, options: { json?: boolean }): Promise<void> {
  checkName(name);
  const client = await connectClient();
  if (verb === 'trigger') await requireSearchAttributes(client);
  const handle = await existing(client, name);
  if (verb === 'pause') await handle.pause('paused by commonplace review schedule pause');
  if (verb === 'unpause') await handle.unpause('unpaused by commonplace review schedule unpause');
  if (verb === 'trigger') await handle.trigger((await handle.describe()).policies.overlap);
  if (verb === 'delete') await handle.delete();
  if (options.json) {
    printJson('schedule-changed', 1, { action: done[verb], name, scheduleId: sweepScheduleId(name) });
    return;
  }
  process.stdout.write(`${done[verb]} schedule ${name}\n`);
}
