import { ScheduleNotFoundError, ScheduleOverlapPolicy, type Client, type ScheduleHandle } from '@temporalio/client';
import type { Command } from 'commander';
import { CommonplaceKind, CommonplaceProfile, CommonplaceStatus, CommonplaceSubject, TASK_QUEUE } from '../search-attributes.js';
import { gateSweep } from '../workflows/gate-sweep.js';
import { openCheckout } from './checkout.js';
import { connectClient } from './connection.js';
import { action, UserError } from './errors.js';
import { sweepIdentity, checkSweepInput, sweepInput, sweepOptions, type SweepCommandOptions } from './review-gates.js';

const overlapPolicies: Record<string, ScheduleOverlapPolicy> = {
  skip: ScheduleOverlapPolicy.SKIP,
  'buffer-one': ScheduleOverlapPolicy.BUFFER_ONE,
  'buffer-all': ScheduleOverlapPolicy.BUFFER_ALL,
  'cancel-other': ScheduleOverlapPolicy.CANCEL_OTHER,
  'terminate-other': ScheduleOverlapPolicy.TERMINATE_OTHER,
  'allow-all': ScheduleOverlapPolicy.ALLOW_ALL,
};

/** Schedule IDs are namespaced so `temporal schedule list` shows which are sweeps; a name is the operator's, one per namespace. */
export const scheduleId = (name: string) => `gates-${name}`;

/**
 * The workflow ID a schedule starts its sweeps under (Temporal appends the start time): a sweep of
 * the checkout (`gates/GS-<checkout>-…`), so "is a sweep of this checkout open?" counts it and a
 * manual sweep is refused while a scheduled one runs, naming it.
 */
export const scheduledWorkflowId = (checkout: string, name: string) => `gates/GS-${checkout}-scheduled-${name}`;

function checkName(name: string): string {
  if (!/^[a-z0-9][a-z0-9-]*$/.test(name)) throw new UserError(`schedule name "${name}" must be lowercase letters, digits and hyphens`);
  return name;
}

/** An interval as an operator writes it (`24h`, `30m`, `90s`), from the milliseconds the server returns. */
export function asWritten(every: unknown): string {
  const ms = Number(every);
  if (!Number.isFinite(ms) || ms <= 0) return String(every);
  const unit = ([['h', 3_600_000], ['m', 60_000], ['s', 1000]] as const).find(([, size]) => ms % size === 0);
  return unit ? `${ms / unit[1]}${unit[0]}` : `${ms}ms`;
}

/** The checkout a schedule's sweeps run on, as its action records it. */
async function scheduledCheckout(handle: ScheduleHandle): Promise<string | undefined> {
  const described = await handle.describe();
  const action = described.action as { args?: unknown[] };
  return (action.args?.[0] as { checkout?: string } | undefined)?.checkout;
}

async function existing(client: Client, name: string): Promise<ScheduleHandle> {
  const handle = client.schedule.getHandle(scheduleId(checkName(name)));
  try {
    await handle.describe();
  } catch (error) {
    if (error instanceof ScheduleNotFoundError) throw new UserError(`no schedule ${name} (Temporal schedule ${scheduleId(name)}); see \`commonplace review schedule list\``);
    throw error;
  }
  return handle;
}

/** `commonplace review schedule create|list|pause|unpause|trigger|delete`: sweeps run unattended by Temporal Schedules. */
export function registerSchedule(review: Command): void {
  const schedule = review.command('schedule').description('gate sweeps on Temporal Schedules (overlap policy skip: a sweep never runs twice at once)');

  sweepOptions(schedule.command('create').description('create a schedule that starts a gate sweep').argument('<name>'))
    .option('--every <interval>', 'interval, e.g. 24h or 30m')
    .option('--cron <expr>', 'cron expression, e.g. "0 3 * * *"')
    .option('--overlap <policy>', `what a start does while the last sweep runs: ${Object.keys(overlapPolicies).join(', ')}`, 'skip')
    .option('--paused', 'create it paused')
    .action(
      action(async (name: string, options: SweepCommandOptions & { every?: string; cron?: string; overlap: string; paused?: boolean }) => {
        checkName(name);
        if (!options.every === !options.cron) throw new UserError('give exactly one of --every INTERVAL or --cron EXPR');
        const overlap = overlapPolicies[options.overlap];
        if (overlap === undefined) throw new UserError(`--overlap must be one of ${Object.keys(overlapPolicies).join(', ')}`);
        const input = sweepInput(options, { autoResume: true });
        await checkSweepInput(input);
        const checkout = await openCheckout(input.checkout);
        const client = await connectClient();
        await client.schedule.create({
          scheduleId: scheduleId(name),
          spec: options.every ? { intervals: [{ every: options.every as `${number}h` }] } : { cronExpressions: [options.cron!] },
          policies: { overlap },
          state: { paused: options.paused ?? false, note: `created by commonplace review schedule create ${name}` },
          action: {
            type: 'startWorkflow',
            workflowType: gateSweep,
            workflowId: scheduledWorkflowId(checkout, name),
            taskQueue: TASK_QUEUE,
            args: [input],
            memo: { identity: sweepIdentity(input), input, schedule: name, checkoutId: checkout },
            staticSummary: `scheduled gate sweep ${name}: ${input.notes.join(' ') || 'all notes'} × ${input.gates.join(' ') || 'all gates'} (${input.grouping}, ${input.profile})`,
            typedSearchAttributes: [
              { key: CommonplaceKind, value: 'gates' },
              { key: CommonplaceStatus, value: 'running' },
              { key: CommonplaceSubject, value: `schedule ${name}` },
              { key: CommonplaceProfile, value: input.profile },
            ],
          },
        }).catch(async (error: Error) => {
          if (!/already/i.test(error.message)) throw error;
          const owner = await scheduledCheckout(client.schedule.getHandle(scheduleId(name))).catch(() => undefined);
          throw new UserError(`schedule ${name} exists${owner ? ` (it sweeps ${owner})` : ''}; schedule names are one per namespace: delete it first or pick another name`);
        });
        process.stdout.write(`created schedule ${name} (Temporal schedule ${scheduleId(name)}), ${options.every ? `every ${options.every}` : `cron ${options.cron}`}, overlap ${options.overlap}${options.paused ? ', paused' : ''}\n`);
      }),
    );

  schedule
    .command('list')
    .description('list the sweep schedules')
    .option('--json', 'print JSON')
    .action(
      action(async (options: { json?: boolean }) => {
        const client = await connectClient();
        const rows: Record<string, unknown>[] = [];
        for await (const summary of client.schedule.list()) {
          if (!summary.scheduleId.startsWith('gates-')) continue;
          const described = await client.schedule.getHandle(summary.scheduleId).describe();
          const intervals = (described.spec.intervals ?? []).map((interval) => `every ${asWritten(interval.every)}`);
          const spec = intervals.length > 0 ? intervals.join(', ') : 'cron';
          rows.push({
            name: summary.scheduleId.replace(/^gates-/, ''),
            scheduleId: summary.scheduleId,
            checkout: (described.action as { args?: { checkout?: string }[] }).args?.[0]?.checkout ?? null,
            spec,
            paused: described.state.paused,
            note: described.state.note ?? '',
            overlap: described.policies.overlap,
            nextRun: described.info.nextActionTimes[0]?.toISOString() ?? null,
            recent: described.info.recentActions.slice(-3).map((recent) => recent.action.workflow.workflowId),
            running: described.info.runningActions.map((running) => running.workflow.workflowId),
            skipped: described.info.numActionsSkippedOverlap,
          });
        }
        if (options.json) {
          process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
          return;
        }
        if (rows.length === 0) process.stdout.write('no sweep schedules\n');
        for (const row of rows) {
          process.stdout.write(
            `${row.name}: ${row.spec}, ${row.paused ? 'paused' : 'active'}, ${row.checkout ?? 'checkout unknown'}, overlap ${row.overlap}, next ${row.nextRun ?? '-'}, running ${(row.running as string[]).join(' ') || 'none'}, skipped ${row.skipped}\n`,
          );
        }
      }),
    );

  for (const [verb, describe] of [
    ['pause', 'pause a schedule (no new sweeps start)'],
    ['unpause', 'unpause a schedule'],
    ['trigger', 'start the schedule\'s sweep now (its overlap policy applies: skipped while one runs)'],
    ['delete', 'delete a schedule (running sweeps go on)'],
  ] as const) {
    schedule
      .command(verb)
      .description(describe)
      .argument('<name>')
      .action(
        action(async (name: string) => {
          const client = await connectClient();
          const handle = await existing(client, name);
          if (verb === 'pause') await handle.pause('paused by commonplace review schedule pause');
          if (verb === 'unpause') await handle.unpause('unpaused by commonplace review schedule unpause');
          if (verb === 'trigger') await handle.trigger((await handle.describe()).policies.overlap);
          if (verb === 'delete') await handle.delete();
          process.stdout.write(`${verb === 'trigger' ? 'triggered' : `${verb}d`} schedule ${name}\n`);
        }),
      );
  }
}
