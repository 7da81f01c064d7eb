/**
 * `commonplace review run gates` and `commonplace review retry`: their options and help. The
 * actions (and the Temporal client they need) load from review-gates-run.ts when a command runs,
 * so `--help` answers at once.
 */
import type { Command } from 'commander';
import { action } from '../../shared/errors.js';
import type { RetryOptions } from './review-gates-run.js';
import type { RunGatesOptions } from './sweep-request.js';
import { sweepOptions } from './sweep-options.js';

/** `commonplace review run gates`: the gate sweep, started, continued or attached to, and followed. */
export function registerRunGates(run: Command): void {
  sweepOptions(
    run
      .command('gates')
      .description('ask the stale and missing (note, criterion) pairs — gates, type specs, COLLECTION.md files — and write their result files'),
  )
    .option('--resume <run>', 'continue the sweep with this run ID (a stopped one resumes; a finished one starts again on its stale pairs)')
    .option('--auto-resume', 'after a usage limit with a known reset time, wait for it and go on')
    .option('--estimate', 'print what the sweep would cost and take (pairs, units, requests, tokens, dollars live and batched, time) and start nothing')
    .option('--detach', 'start the sweep and return without following it')
    .option('--json', 'print the outcome as one JSON document (shape run-outcome; with --detach, sweep-started)')
    .addHelpText(
      'after',
      `
Exit codes: 0 completed; 2 stopped or exhausted (the output names the one next command); 1 anything else.

Examples:
  $ commonplace review run gates --notes 'kb/notes/**' --gates 'prose/*' --max-cost 5
  $ commonplace review run gates --criteria types,collections --grouping bundle
  $ commonplace review run gates --profile anthropic-sonnet --estimate
  $ commonplace review run gates --resume GS-3f9c2a-1b2c3d4e5f --max-cost 8
`,
    )
    .action(action(async (options: RunGatesOptions) => (await import('./review-gates-run.js')).runGates(options)));
}

/** `commonplace review retry RUN`: re-asks the problem pairs of a finished sweep, in a new sweep. */
export function registerRetry(review: Command): void {
  review
    .command('retry')
    .description('re-ask the problem pairs of a finished sweep, in a new sweep')
    .argument('<run>', "the finished sweep's run ID")
    .option('--profile <name>', 'worker profile (default: the one the sweep used)')
    .option('--kb <dir>', 'KB checkout the sweep ran on (default: the one the sweep recorded; given, it must be that one)')
    .option('--json', 'print the outcome as one JSON document (shape run-outcome; review-retry when there is nothing to retry)')
    .addHelpText(
      'after',
      `
Exit codes: 0 completed or nothing to retry; 2 stopped or exhausted, or the sweep is still open (the message names the one next command); 1 anything else.

Example:
  $ commonplace review retry GS-3f9c2a-1b2c3d4e5f --profile codex
`,
    )
    .action(action(async (run: string, options: RetryOptions) => (await import('./review-gates-run.js')).runRetry(run, options)));
}
