/**
 * The options every way of starting a sweep registers (`review run gates`, `review schedule create`):
 * commander only, so `--help` stays light. Their values are read by sweep-request.ts.
 */
import { Option, type Command } from 'commander';
import { KB_HELP } from '../../shared/help-text.js';

/** The overlap policies an operator names (Temporal's ScheduleOverlapPolicy, kebab-case). */
export const OVERLAP_POLICIES = ['skip', 'buffer-one', 'buffer-all', 'cancel-other', 'terminate-other', 'allow-all'] as const;

const collect = (value: string, previous: string[]) => [...previous, value];

/** Adds the options every way of starting a sweep shares (the run command and schedules). */
export function sweepOptions(command: Command): Command {
  return command
    .addOption(new Option('--notes <glob>', 'notes to sweep, as a glob on KB paths (repeatable)').default([], 'every reviewable note').argParser(collect))
    .addOption(
      new Option('--gates <glob>', 'gates to apply, as a glob on gate IDs such as "prose/*" (repeatable)').default([], 'every gate').argParser(collect),
    )
    .option(
      '--criteria <kinds>',
      'criterion kinds to sweep, comma-separated: gates, types (type specs), collections (COLLECTION.md files); default all three, or gates only when --gates is given',
    )
    .option(
      '--grouping <grouping>',
      'pair: one launch per pair; bundle: one launch per note and lens, its type and collection criteria joining a bundle within the size cap',
      'pair',
    )
    .option('--profile <name>', 'worker profile', 'claude')
    .option('--concurrency <n>', "launches in flight at once (default: the profile's, 32 on a model API, 4 on a CLI)")
    .option('--batch-size <n>', "launches per child workflow (default: the profile's, 500 on a model API, 100 on a CLI)")
    .option('--batch', 'ask the units as provider batches: half price, results within 24 h (anthropic and openai profiles; docs/batches.md)')
    .option('--live', 'ask every unit live, also where a schedule would batch a large sweep')
    .option('--kb <dir>', KB_HELP)
    .option('--profiles <file>', "worker profiles file (default: the KB's, else the shipped one)")
    .option('--scenario <file>', 'fake-harness scenario file (profile fake)')
    .option(
      '--max-cost <usd>',
      'stop (spend-limit) before a launch that would take the sweep past this many US dollars; on a stopped sweep, the new cap it resumes with',
    );
}
