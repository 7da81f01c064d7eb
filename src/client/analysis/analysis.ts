/** `commonplace analysis …`: registration only; the actions load their modules when they run, so `--help` loads no Temporal SDK. */
import type { Command } from 'commander';
import { DEFAULT_PLAN } from '../../activities/analysis/default-plan.js';
import { registerIntegrate, registerReset } from './analysis-lifecycle.js';
import { registerInstallMethod } from './analysis-method.js';
import { action } from '../shared/errors.js';
import { examples, KB_HELP } from '../shared/help-text.js';
import type { PrepareOptions, RunOptions } from './analysis-run.js';

/** `analysis prepare <system> --source …`: the run ID, its worktree and parameters; no server needed. */
function registerPrepare(analysis: Command): void {
  analysis
    .command('prepare')
    .description("allocate a run ID, create the run's worktree on its branch at the current commit, and write its parameters")
    .argument('<system>', 'the system analysed (its name makes the run ID)')
    .requiredOption('--source <source>', 'a Git URL, a path to a Git repository or a directory, or a bundle file')
    .option('--revision <rev>', 'for a Git source: the revision to freeze (default: HEAD)')
    .option('--profile <name>', 'worker profile', 'claude')
    .option('--plan <file>', `the plan, inside the checkout (default: ${DEFAULT_PLAN})`)
    .option('--worktrees <dir>', 'where run worktrees go (default: <checkout>.worktrees/ beside the checkout)')
    .option('--json', 'print the prepared run as one JSON document (shape analysis-prepared)')
    .option('--kb <dir>', KB_HELP)
    .addHelpText(
      'after',
      examples(
        'commonplace analysis prepare quill --source ../quill --profile claude',
        'commonplace analysis prepare quill --source https://github.com/example/quill.git --revision v1.2.0 --json',
      ),
    )
    .action(action(async (system: string, options: PrepareOptions) => (await import('./analysis-run.js')).runPrepare(system, options)));
}

/** `analysis run <run-id>`: starts, attaches to or resumes the run, and follows it (exit 0 completed, 2 stopped, 1 failed). */
function registerRun(analysis: Command): void {
  analysis
    .command('run')
    .description("start the run's workflow, attach to it while it runs, or resume it when stopped; follow it to completion or a stop")
    .argument('<run-id>', 'the run prepare allocated')
    .option('--auto-resume', 'after a usage limit with a known reset time, wait for it on a durable timer and go on')
    .option('--profiles <file>', "worker profiles file (default: the worktree's kb/instructions/worker-profiles.yaml, else the shipped one)")
    .option('--scenario <file>', 'fake-harness scenario file (profile fake)')
    .option(
      '--max-cost <usd>',
      'stop (spend-limit) before a launch that would take the run past this many US dollars; on a stopped run, the new cap it resumes with',
    )
    .option('--estimate', 'print what the run would cost and take (launches, requests, tokens, dollars, time) and start nothing')
    .option('--detach', 'start or resume the run and return without following it')
    .option(
      '--json',
      'print the outcome as one JSON document (shape run-outcome; with --detach, analysis-started; with --estimate, estimate); progress stays on stderr',
    )
    .option('--kb <dir>', KB_HELP)
    .addHelpText(
      'after',
      examples(
        'commonplace analysis run AAS-2026-12-03-quill-01',
        'commonplace analysis run AAS-2026-12-03-quill-01 --max-cost 20 --auto-resume --json',
        'commonplace analysis run AAS-2026-12-03-quill-01 --estimate',
      ),
    )
    .action(action(async (runId: string, options: RunOptions) => (await import('./analysis-run.js')).runRun(runId, options)));
}

/** `analysis inspect <run-id>`: the whole run, live while it runs, from the run directory once it has finished (or without a server). */
function registerInspect(analysis: Command): void {
  analysis
    .command('inspect')
    .description('print the run: stage, attempts with outcomes and findings, budgets left, members and their checks, the stop and its evidence')
    .argument('<run-id>', 'the run')
    .option('--json', 'print the run record as one JSON document (shape analysis-inspect)')
    .option('--kb <dir>', KB_HELP)
    .addHelpText('after', examples('commonplace analysis inspect AAS-2026-12-03-quill-01', 'commonplace analysis inspect AAS-2026-12-03-quill-01 --json'))
    .action(action(async (runId: string, options: { json?: boolean; kb?: string }) => (await import('./analysis-run.js')).runInspect(runId, options)));
}

/** `commonplace analysis …`: prepare, run and inspect analysis runs. */
export function registerAnalysis(program: Command): Command {
  const analysis = program
    .command('analysis')
    .description('analyse an external agentic system: install the method, prepare a run, run it (resuming stops), inspect, reset or integrate it');
  registerPrepare(analysis);
  registerRun(analysis);
  registerInspect(analysis);
  registerReset(analysis);
  registerIntegrate(analysis);
  registerInstallMethod(analysis);
  return analysis;
}
