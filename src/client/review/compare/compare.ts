/** `review compare`: a reproducible sample asked under two or more routes, and how they agree. Options and help; the action is compare-run.ts. */
import { Option, type Command } from 'commander';
import { action } from '../../shared/errors.js';
import type { CompareCommandOptions } from './compare-run.js';
import { registerCompareKeep } from './compare-keep.js';
import { registerCompareLabel } from './compare-label.js';
import { KB_HELP } from '../../shared/help-text.js';

const collect = (value: string, previous: string[]) => [...previous, value];

/** Registers `review compare` and returns it, for its subcommands. */
export function registerCompare(review: Command): Command {
  const compare = review
    .command('compare')
    .description('compare routes on one sample of pairs: run one (the default), label its disagreements, keep it as calibration records');
  // The run is the default subcommand, so `review compare --routes …` starts one and `label`/`keep` own their options (`--kb`, `--criteria`, `--reference` are theirs too).
  compare
    .command('run', { isDefault: true })
    .description(
      "ask one reproducible sample of (note, criterion) pairs under two or more routes, keep every route's verdicts apart, and report their agreement",
    )
    .option('--routes <routes>', 'the routes, comma-separated: <profile>[:pair|:bundle][:batch], e.g. claude:pair,anthropic-haiku:pair')
    .option(
      '--reference <route>',
      "the route every other is scored against first: one of --routes, or `results` (the KB's fresh result files, read, not asked); default the first route",
    )
    .option('--size <n>', 'pairs in the sample', '40')
    .option('--seed <n>', "the sample's seed: the same seed, KB and options draw the same pairs", '1')
    .option('--per-criterion-min <k>', 'each criterion gets at least this many pairs where the KB has them', '2')
    .addOption(
      new Option(
        '--criteria <glob>',
        'criteria to sample, as a glob on criterion IDs (a gate ID such as "prose/*", a lens, or a type spec\'s or COLLECTION.md\'s KB path; repeatable)',
      )
        .default([], 'every gate, type spec and collection')
        .argParser(collect),
    )
    .addOption(new Option('--notes <glob>', 'notes to sample, as a glob on KB paths (repeatable)').default([], 'every reviewable note').argParser(collect))
    .option('--concurrency <n>', 'launches in flight at once', '4')
    .option('--max-cost <usd>', 'stop (spend-limit) before a launch that would take the run past this many US dollars; with --resume, the new cap')
    .option('--estimate', 'print what each route would cost and take (pairs, units, requests, tokens, dollars live and batched, time) and start nothing')
    .option('--resume <run>', 'resume the stopped compare run with this run ID (or attach to it while it runs)')
    .option('--kb <dir>', KB_HELP)
    .option('--profiles <file>', "worker profiles file (default: the KB's, else the shipped one)")
    .option('--scenario <file>', 'fake-harness scenario file for every route (profile fake)')
    .option('--json', 'print the outcome as one JSON document (shape run-outcome)')
    .addHelpText(
      'after',
      `
The run's directory is kb/reports/state/review/compare/<run-id>/: sample.json, verdicts/<route>.jsonl,
and report.json, report.md, report.html at the end. The KB's result files are never written.
Running the same command again attaches to the run (or resumes it when stopped); a finished run
prints its summary again.

Exit codes: 0 completed; 2 stopped (the output names the one next command); 1 anything else.

Examples:
  $ commonplace review compare --routes claude:pair,anthropic-haiku:pair --size 60 --seed 7 --max-cost 5
  $ commonplace review compare --routes claude:bundle --reference results --criteria 'prose/*'
  $ commonplace review compare --routes anthropic-haiku:pair,anthropic-sonnet:bundle --size 200 --estimate
  $ commonplace review compare --resume CMP-3f9c2a-1b2c3d4e5f --max-cost 8
`,
    )
    .action(action(async (options: CompareCommandOptions) => (await import('./compare-run.js')).runCompare(options)));
  registerCompareLabel(compare);
  registerCompareKeep(compare);
  return compare;
}
