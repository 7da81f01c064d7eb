import { WorkflowIdConflictPolicy, WorkflowIdReusePolicy, WorkflowNotFoundError, WorkflowUpdateFailedError, type Client, type WorkflowHandle } from '@temporalio/client';
import type { Command } from 'commander';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { findCheckout } from '../kb/checkout.js';
import { KbError } from '../kb/errors.js';
import { loadPlan, PlanError } from '../analysis/load-plan.js';
import type { AnalysisInput, AnalysisProgress } from '../analysis/progress.js';
import { runRecordFile } from '../analysis/run-dir.js';
import { analysisWorkflowId } from '../analysis/run-id.js';
import { openCheckout } from './checkout.js';
import { DEFAULT_PLAN, PrepareError, prepareRun } from '../activities/analysis/prepare.js';
import { locateRun, RunNotFoundError, type LocatedRun } from '../activities/analysis/runs.js';
import { GitError } from '../fs/git.js';
import { CommonplaceKind, CommonplaceProfile, CommonplaceStatus, CommonplaceSubject, TASK_QUEUE } from '../search-attributes.js';
import { analysis as analysisWorkflow, progressQuery, resumeUpdate } from '../workflows/analysis.js';
import { analysisFormat, formatExhausted, formatInspect, formatResult, formatStop } from './analysis-format.js';
import { checkLaunchInputs } from './input-checks.js';
import { follow } from './follow.js';
import { registerIntegrate, registerReset } from './analysis-lifecycle.js';
import { registerInstallMethod } from './analysis-method.js';
import { connectClient } from './connection.js';
import { action, UserError } from './errors.js';
import { capNotApplied, parseMaxCost, resumeRequest } from './spend.js';

/** Turns the library's errors into the operator's one-line (per problem) messages, exit 1. */
function asUserError(error: unknown, nothing = 'nothing was started'): unknown {
  if (error instanceof PlanError) return new UserError(`${error.message}\n${nothing}`);
  if (error instanceof PrepareError || error instanceof RunNotFoundError || error instanceof GitError) return new UserError(error.message);
  if (error instanceof KbError) return new UserError(error.message);
  return error;
}

const checkoutOf = (kb: string | undefined) => findCheckout(process.cwd(), kb).root;

/** `analysis prepare <system> --source …`: the run ID, its worktree and parameters; no server needed. */
function registerPrepare(analysis: Command): void {
  analysis
    .command('prepare')
    .description('allocate a run ID, create the run\'s worktree on its branch at the current commit, and write its parameters')
    .argument('<system>', 'the system analysed (its name makes the run ID)')
    .requiredOption('--source <source>', 'a Git URL, a path to a Git repository or a directory, or a bundle file')
    .option('--revision <rev>', 'for a Git source: the revision to freeze (default HEAD)')
    .option('--profile <name>', 'worker profile', 'claude')
    .option('--plan <file>', `the plan, inside the checkout (default ${DEFAULT_PLAN})`)
    .option('--worktrees <dir>', 'where run worktrees go (default: <checkout>.worktrees/ beside the checkout)')
    .option('--kb <dir>', 'KB checkout (default: the Git root above the current directory that holds kb/)')
    .action(
      action(async (system: string, options: { source: string; revision?: string; profile: string; plan?: string; worktrees?: string; kb?: string }) => {
        try {
          const checkout = checkoutOf(options.kb);
          await openCheckout(checkout);
          const prepared = await prepareRun({
            checkout,
            system,
            source: options.source,
            profile: options.profile,
            ...(options.revision !== undefined && { revision: options.revision }),
            ...(options.plan !== undefined && { plan: path.resolve(options.plan) }),
            ...(options.worktrees !== undefined && { worktreesRoot: path.resolve(options.worktrees) }),
          });
          const { parameters } = prepared;
          process.stdout.write(
            [
              `prepared ${prepared.runId}`,
              `  worktree   ${prepared.worktree} (branch ${prepared.branch}, commit ${parameters.preparationCommit.slice(0, 12)})`,
              `  run dir    ${prepared.runDir}`,
              `  plan       ${parameters.plan} (sha256 ${parameters.planSha256.slice(0, 12)}), layout ${parameters.layout}`,
              `  source     ${parameters.source.kind} ${parameters.source.location}${parameters.source.revision ? ` at ${parameters.source.revision}` : ''}`,
              `  profile    ${parameters.profile}`,
              `next: commonplace analysis run ${prepared.runId}`,
              '',
            ].join('\n'),
          );
        } catch (error) {
          throw asUserError(error, 'nothing was prepared');
        }
      }),
    );
}

/** The workflow's state, or undefined when there is none; a workflow of the same ID made for another worktree is refused. */
async function describe(handle: WorkflowHandle, run: LocatedRun): Promise<string | undefined> {
  let described;
  try {
    described = await handle.describe();
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return undefined;
    throw error;
  }
  const worktree = described.memo?.worktree;
  if (typeof worktree === 'string' && path.resolve(worktree) !== path.resolve(run.worktree)) {
    throw new UserError(`workflow ${handle.workflowId} on this Temporal namespace belongs to the run in ${worktree}, not to ${run.worktree}; two checkouts prepared the same run ID — use another namespace (TEMPORAL_NAMESPACE) for one of them`);
  }
  return described.status.name;
}

/** Starts the run's workflow (or attaches: USE_EXISTING is the run lock), with its summary and search attributes. */
async function startRun(client: Client, run: LocatedRun, input: AnalysisInput): Promise<WorkflowHandle<typeof analysisWorkflow>> {
  return client.workflow.start(analysisWorkflow, {
    taskQueue: TASK_QUEUE,
    workflowId: analysisWorkflowId(await openCheckout(run.parameters.checkout), run.runId),
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
    workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
    args: [input],
    memo: { worktree: run.worktree },
    staticSummary: `analysis of ${run.parameters.system}: run ${run.runId} (profile ${run.parameters.profile})`,
    typedSearchAttributes: [
      { key: CommonplaceKind, value: 'analysis' },
      { key: CommonplaceStatus, value: 'running' },
      { key: CommonplaceSubject, value: run.parameters.system },
      { key: CommonplaceProfile, value: run.parameters.profile },
    ],
  });
}

/** `analysis run <run-id>`: starts, attaches to or resumes the run, and follows it (exit 0 completed, 2 stopped, 1 failed). */
function registerRun(analysis: Command): void {
  analysis
    .command('run')
    .description('start the run\'s workflow, attach to it while it runs, or resume it when stopped; follow it to completion or a stop')
    .argument('<run-id>', 'the run prepare allocated')
    .option('--auto-resume', 'after a usage limit with a known reset time, wait for it on a durable timer and go on')
    .option('--profiles <file>', 'worker profiles file (default: the worktree\'s kb/instructions/worker-profiles.yaml, else the shipped one)')
    .option('--scenario <file>', 'fake-harness scenario file (profile fake)')
    .option('--max-cost <usd>', 'stop (spend-limit) before a launch that would take the run past this many US dollars; on a stopped run, the new cap it resumes with')
    .option('--detach', 'start or resume the run and return without following it')
    .option('--kb <dir>', 'KB checkout (default: the Git root above the current directory that holds kb/)')
    .action(
      action(async (runId: string, options: { autoResume?: boolean; profiles?: string; scenario?: string; maxCost?: string; detach?: boolean; kb?: string }) => {
        const maxCostUsd = parseMaxCost(options.maxCost);
        let run: LocatedRun;
        try {
          run = await locateRun(checkoutOf(options.kb), runId);
          // The plan is loaded before anything starts: a bad plan is refused here with its path.
          await loadPlan(run.worktree, run.parameters.plan);
        } catch (error) {
          throw asUserError(error);
        }
        const recorded = await readRecord(run);
        if (recorded?.status === 'exhausted') {
          // The run directory says it ended: no server is needed to say what is left.
          process.stdout.write(`${formatExhausted(runId, recorded.stops[0], recorded.stage)}\n`);
          process.exitCode = 2;
          return;
        }
        const client = await connectClient();
        const handle = client.workflow.getHandle<typeof analysisWorkflow>(analysisWorkflowId(await openCheckout(run.parameters.checkout), runId));
        const state = await describe(handle, run);
        if (state === 'COMPLETED') {
          const { text, status } = formatResult(await handle.result());
          process.stdout.write(`${text}\n`);
          if (status === 'exhausted') process.exitCode = 2;
          return;
        }
        if (state !== undefined && state !== 'RUNNING') {
          throw new UserError(`run ${runId} ended ${state.toLowerCase()} (workflow ${handle.workflowId}); run does not start it again under the same ID: its record is in ${run.runDir}`);
        }
        if (state === 'RUNNING') {
          const progress = await handle.query(progressQuery).catch(() => undefined);
          if (progress?.status === 'stopped') {
            process.stderr.write(`resuming ${handle.workflowId} (stopped: ${progress.stops.map((stop) => stop.kind).join(', ')})\n`);
            try {
              await handle.executeUpdate(resumeUpdate, { args: [resumeRequest(maxCostUsd)] });
            } catch (error) {
              if (!(error instanceof WorkflowUpdateFailedError)) throw error;
              process.stdout.write(`${formatStop(progress)}\n  not resumed: ${error.cause?.message ?? error.message}\n`);
              process.exitCode = 2;
              return;
            }
          } else {
            process.stderr.write(`attaching to ${handle.workflowId}${progress ? ` (${progress.stage})` : ''}${capNotApplied(maxCostUsd)}\n`);
          }
        } else {
          const input: AnalysisInput = {
            runId,
            checkout: run.parameters.checkout,
            worktree: run.worktree,
            runDir: run.runDir,
            autoResume: options.autoResume ?? false,
            ...(maxCostUsd !== undefined && { maxCostUsd }),
            ...(options.profiles !== undefined && { profilesFile: path.resolve(options.profiles) }),
            ...(options.scenario !== undefined && { env: { COMMONPLACE_FAKE_SCENARIO: path.resolve(options.scenario) } }),
          };
          checkLaunchInputs({ checkout: run.worktree, profile: run.parameters.profile, ...(input.profilesFile !== undefined && { profilesFile: input.profilesFile }), ...(input.env !== undefined && { env: input.env }) });
          await startRun(client, run, input);
          process.stderr.write(`started ${handle.workflowId}; watch it in the Web UI or with: temporal workflow describe --workflow-id ${handle.workflowId}\n`);
        }
        if (options.detach) return;
        await follow(handle, analysisFormat(client));
      }),
    );
}

/** The run's record in its run directory (run.json), when the workflow wrote one. */
async function readRecord(run: LocatedRun): Promise<AnalysisProgress | undefined> {
  return readFile(runRecordFile(run.runDir), 'utf8')
    .then((text) => JSON.parse(text) as AnalysisProgress)
    .catch(() => undefined);
}

async function live(run: LocatedRun): Promise<AnalysisProgress | string> {
  try {
    const client = await connectClient();
    const handle = client.workflow.getHandle(analysisWorkflowId(await openCheckout(run.parameters.checkout), run.runId));
    if ((await describe(handle, run)) === undefined) return 'no workflow for it on the server';
    const timeout = new Promise<string>((done) => setTimeout(() => done('no worker answered within 5 s'), 5000).unref());
    return await Promise.race([handle.query(progressQuery), timeout]);
  } catch (error) {
    return (error as Error).message.split('\n')[0] ?? String(error);
  }
}

/** `analysis inspect <run-id>`: the whole run, live while it runs, from the run directory once it has finished (or without a server). */
function registerInspect(analysis: Command): void {
  analysis
    .command('inspect')
    .description('print the run: stage, attempts with outcomes and findings, budgets left, members and their checks, the stop and its evidence')
    .argument('<run-id>', 'the run')
    .option('--json', 'print the run record as JSON')
    .option('--kb <dir>', 'KB checkout (default: the Git root above the current directory that holds kb/)')
    .action(
      action(async (runId: string, options: { json?: boolean; kb?: string }) => {
        let run: LocatedRun;
        try {
          run = await locateRun(checkoutOf(options.kb), runId);
        } catch (error) {
          throw asUserError(error);
        }
        const recorded = await readRecord(run);
        let progress = recorded;
        let where = recorded ? `from ${runRecordFile(run.runDir)}, written ${recorded.updatedAt}` : 'prepared, never started';
        if (recorded === undefined || !['completed', 'blocked', 'exhausted', 'failed', 'cancelled'].includes(recorded.status)) {
          const answer = await live(run);
          if (typeof answer === 'string') {
            if (recorded) where = `${where}; live state unavailable: ${answer}`;
          } else {
            progress = answer;
            where = 'live';
          }
        }
        if (progress === undefined) {
          const parameters = run.parameters;
          if (options.json) {
            process.stdout.write(`${JSON.stringify({ runId, status: 'prepared', parameters }, null, 2)}\n`);
            return;
          }
          process.stdout.write(`run ${runId} of ${parameters.system}: prepared, not started\n  worktree ${run.worktree}\n  start it with: commonplace analysis run ${runId}\n`);
          return;
        }
        if (options.json) {
          process.stdout.write(`${JSON.stringify({ ...progress, parameters: run.parameters, readFrom: where }, null, 2)}\n`);
          return;
        }
        process.stdout.write(`${formatInspect(progress, where)}\n`);
      }),
    );
}

/** `commonplace analysis …`: prepare, run and inspect analysis runs. */
export function registerAnalysis(program: Command): Command {
  const analysis = program.command('analysis').description('analyse an external agentic system: install the method, prepare a run, run it (resuming stops), inspect, reset or integrate it');
  registerPrepare(analysis);
  registerRun(analysis);
  registerInspect(analysis);
  registerReset(analysis);
  registerIntegrate(analysis);
  registerInstallMethod(analysis);
  return analysis;
}
