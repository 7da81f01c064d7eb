/**
 * `commonplace review schedule create|list|pause|unpause|trigger|delete`: sweeps run unattended by
 * Temporal Schedules. Options and help only; the actions load from review-schedule-run.ts.
 */
import type { Command } from 'commander';
import { action } from '../../shared/errors.js';
import type { ScheduleCreateOptions } from './review-schedule-run.js';
import { OVERLAP_POLICIES, sweepOptions } from './sweep-options.js';

const run = () => import('./review-schedule-run.js');

/** `commonplace review schedule …`. */
export function registerSchedule(review: Command): void {
  const schedule = review.command('schedule').description('gate sweeps on Temporal Schedules (overlap policy skip: a sweep never runs twice at once)');

  sweepOptions(
    schedule
      .command('create')
      .description('create a schedule that starts a gate sweep')
      .argument('<name>', "the schedule's name: lowercase letters, digits and hyphens, one per namespace"),
  )
    .option('--every <interval>', 'interval, e.g. 24h or 30m')
    .option('--cron <expr>', 'cron expression, e.g. "0 3 * * *"')
    .option('--overlap <policy>', `what a start does while the last sweep runs: ${OVERLAP_POLICIES.join(', ')}`, 'skip')
    .option('--paused', 'create it paused')
    .option('--json', 'print what was created as one JSON document (shape schedule-changed)')
    .addHelpText(
      'after',
      `
Its sweeps resume by themselves after a usage limit with a known reset time (auto-resume).
Exit codes: 0 created; 1 anything else (a bad option, a name taken, no server).

Examples:
  $ commonplace review schedule create nightly --every 24h --gates 'prose/*' --max-cost 10
  $ commonplace review schedule create weekly --cron '0 3 * * 1' --paused
`,
    )
    .action(action(async (name: string, options: ScheduleCreateOptions) => (await run()).runScheduleCreate(name, options)));

  schedule
    .command('list')
    .description('list the sweep schedules: interval, paused or active, checkout, overlap policy, next start, running and skipped sweeps')
    .option('--json', 'print the schedules as one JSON document (shape schedule-list)')
    .addHelpText(
      'after',
      `
Examples:
  $ commonplace review schedule list
  $ commonplace review schedule list --json
`,
    )
    .action(action(async (options: { json?: boolean }) => (await run()).runScheduleList(options)));

  for (const [verb, describe] of [
    ['pause', 'pause a schedule (no new sweeps start)'],
    ['unpause', 'unpause a schedule'],
    ['trigger', "start the schedule's sweep now (its overlap policy applies: skipped while one runs)"],
    ['delete', 'delete a schedule (running sweeps go on)'],
  ] as const) {
    schedule
      .command(verb)
      .description(describe)
      .argument('<name>', "the schedule's name (as `review schedule list` shows it)")
      .option('--json', 'print what changed as one JSON document (shape schedule-changed)')
      .addHelpText(
        'after',
        `
Exit codes: 0 done; 1 anything else (no such schedule, no server).

Example:
  $ commonplace review schedule ${verb} nightly
`,
      )
      .action(action(async (name: string, options: { json?: boolean }) => (await run()).runScheduleChange(verb, name, options)));
  }
}
