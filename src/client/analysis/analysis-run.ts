import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { findCheckout, knownCheckoutId, openCheckout } from '../../checkout/index.js';
import { KbError } from '../../kb/errors.js';
import { loadPlan, PlanError } from '../../analysis/load-plan.js';
import type { AnalysisInput, AnalysisProgress, AnalysisResult } from '../../analysis/progress.js';
import { runRecordFile } from '../../analysis/run-dir.js';
import { analysisWorkflowId } from '../../runs/workflow-ids.js';
import { PrepareError, prepareRun } from '../../activities/analysis/prepare.js';
import { locateRun, RunNotFoundError, type LocatedRun } from '../../activities/analysis/runs.js';
import { GitError } from '../../fs/git.js';
import { type analysis as analysisWorkflow, progressQuery, resumeUpdate } from '../../workflows/analysis.js';
import { describe, startRun } from './analysis-start.js';
import { analysisEstimate } from './analysis-estimate.js';
import { estimateLineOf, printEstimate } from '../shared/estimate-output.js';
import { analysisNext, runCommand } from '../../runs/run-commands.js';
import { analysisFormat, formatInspect, formatResult, formatStop } from './analysis-format.js';
import { checkLaunchInputs } from '../shared/input-checks.js';
import { follow, type RunOutcome } from '../shared/follow.js';
import { connectClient } from '../shared/connection.js';
import { requireSearchAttributes } from '../shared/preflight.js';
import { UserError } from '../shared/errors.js';
import { printJson } from '../shared/json-output.js';
import { flag, maxCostOption, parseOptions } from '../shared/options.js';
import { capNotApplied, sendResume } from '../shared/spend.js';
import { nextStep } from '../shared/stop-format.js';
import { rendered } from '../shared/render-paths.js';
import { describeCommand, runnable, workingOn } from '../shared/command-line.js';

/** One line per problem, exit 1. */
function asUserError(error: unknown, nothing = 'nothing was started'): unknown {
  if (error instanceof PlanError) return new UserError(`${error.message}\n${nothing}`);
  if (error instanceof PrepareError || error instanceof RunNotFoundError || error instanceof GitError) return new UserError(error.message);
  if (error instanceof KbError) return new UserError(error.message);
  return error;
}

const checkoutOf = (kb: string | undefined) => workingOn(findCheckout(process.cwd(), kb).root);

export interface PrepareOptions {
  source: string;
  revision?: string;
  profile: string;
  plan?: string;
  worktrees?: string;
  kb?: string;
  json?: boolean;
}

/** `analysis prepare <system> --source …`: the run ID, its worktree and parameters; no server needed. */
export async function runPrepare(system: string, options: PrepareOptions): Promise<void> {
  let prepared;
  try {
    const checkout = checkoutOf(options.kb);
    await openCheckout(checkout);
    prepared = await prepareRun({
      checkout,
      system,
      source: options.source,
      profile: options.profile,
      ...(options.revision !== undefined && { revision: options.revision }),
      ...(options.plan !== undefined && { plan: path.resolve(options.plan) }),
      ...(options.worktrees !== undefined && { worktreesRoot: path.resolve(options.worktrees) }),
    });
  } catch (error) {
    throw asUserError(error, 'nothing was prepared');
  }
  const { parameters } = prepared;
  const next = runCommand.analysisRun(prepared.runId);
  if (options.json) {
    printJson('analysis-prepared', 1, {
      runId: prepared.runId,
      system: parameters.system,
      worktree: prepared.worktree,
      branch: prepared.branch,
      runDir: prepared.runDir,
      next,
      parameters,
    });
    return;
  }
  process.stdout.write(
    [
      `prepared ${prepared.runId}`,
      `  worktree   ${prepared.worktree} (branch ${prepared.branch}, commit ${parameters.preparationCommit.slice(0, 12)})`,
      `  run dir    ${prepared.runDir}`,
      `  plan       ${parameters.plan} (sha256 ${parameters.planSha256.slice(0, 12)}), layout ${parameters.layout}`,
      `  source     ${parameters.source.kind} ${parameters.source.location}${parameters.source.revision ? ` at ${parameters.source.revision}` : ''}`,
      `  profile    ${parameters.profile}`,
      `next: ${runnable(next, parameters.checkout)}`,
      '',
    ].join('\n'),
  );
}

/** run.json, when the workflow wrote one. */
async function readRecord(run: LocatedRun): Promise<AnalysisProgress | undefined> {
  return readFile(runRecordFile(run.runDir), 'utf8')
    .then((text) => JSON.parse(text) as AnalysisProgress)
    .catch(() => undefined);
}

/** A closed run's outcome, as text or as a `run-outcome` document; exhausted exits 2. */
function printResult(workflowId: string, result: AnalysisResult, json: boolean | undefined): void {
  const { text, status, next } = formatResult(result);
  const exitCode = status === 'exhausted' ? 2 : 0;
  if (json)
    printJson('run-outcome', 1, { workflowId, runId: result.runId, status, exitCode, ...(next !== undefined && { next }), result } satisfies RunOutcome);
  else process.stdout.write(`${rendered(text)}\n`);
  if (exitCode !== 0) process.exitCode = exitCode;
}

/** In the order their checks run: the cap first, before the run is located. */
const RUN_FIELDS = z.object({
  maxCost: maxCostOption,
  kb: z.string().optional(),
  autoResume: flag,
  profiles: z.string().optional(),
  scenario: z.string().optional(),
  detach: flag,
  estimate: flag,
  json: flag,
});
export type RunOptions = z.input<typeof RUN_FIELDS>;

/** `analysis run <run-id>`: starts, attaches to or resumes the run, and follows it (exit 0 completed, 2 stopped, 1 failed). */
export async function runRun(runId: string, raw: RunOptions): Promise<void> {
  const options = parseOptions(RUN_FIELDS, raw);
  const maxCostUsd = options.maxCost;
  let run: LocatedRun;
  try {
    run = await locateRun(checkoutOf(options.kb), runId);
    // The plan is loaded before anything starts: a bad plan is refused here with its path.
    await loadPlan(run.worktree, run.parameters.plan);
  } catch (error) {
    throw asUserError(error);
  }
  const profilesFile = options.profiles === undefined ? undefined : path.resolve(options.profiles);
  if (options.estimate)
    return printEstimate(await analysisEstimate(run, profilesFile).catch((error: unknown) => Promise.reject(asUserError(error))), options.json);
  const workflowId = analysisWorkflowId(await knownCheckoutId(run.parameters.checkout), runId);
  const recorded = await readRecord(run);
  if (recorded?.status === 'exhausted') {
    // The run directory says it ended: no server is needed to say what is left.
    const stop = recorded.stops[0];
    printResult(workflowId, { runId, status: 'exhausted', ...(stop !== undefined && { stop }), progress: recorded }, options.json);
    return;
  }
  const client = await connectClient();
  await requireSearchAttributes(client);
  const handle = client.workflow.getHandle<typeof analysisWorkflow>(workflowId);
  const state = await describe(handle, run);
  if (state === 'COMPLETED') {
    printResult(workflowId, await handle.result(), options.json);
    return;
  }
  if (state !== undefined && state !== 'RUNNING') {
    throw new UserError(
      `run ${runId} ended ${state.toLowerCase()} (workflow ${workflowId}); run does not start it again under the same ID: its record is in ${run.runDir}`,
    );
  }
  let action: 'started' | 'resumed' | 'attached';
  if (state === 'RUNNING') {
    const progress = await handle.query(progressQuery).catch(() => undefined);
    if (progress?.status === 'stopped') {
      process.stderr.write(`resuming ${workflowId} (stopped: ${progress.stops.map((stop) => stop.kind).join(', ')})\n`);
      const why = await sendResume(handle, resumeUpdate, maxCostUsd);
      if (why !== undefined) {
        if (options.json) {
          const next = nextStep(progress.stops, progress.status, analysisNext(runId), progress.spend)?.command ?? runCommand.analysisRun(runId);
          printJson('run-outcome', 1, {
            workflowId,
            runId,
            status: 'stopped',
            exitCode: 2,
            next,
            stops: progress.stops,
            message: `not resumed: ${why}`,
            progress,
          } satisfies RunOutcome);
        } else {
          process.stdout.write(rendered(`${formatStop(progress)}\n  not resumed: ${why}\n`));
        }
        process.exitCode = 2;
        return;
      }
      action = 'resumed';
    } else {
      process.stderr.write(`attaching to ${workflowId}${progress ? ` (${progress.stage})` : ''}${capNotApplied(maxCostUsd)}\n`);
      action = 'attached';
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
    checkLaunchInputs({
      checkout: run.worktree,
      profile: run.parameters.profile,
      ...(input.profilesFile !== undefined && { profilesFile: input.profilesFile }),
      ...(input.env !== undefined && { env: input.env }),
    });
    process.stderr.write(`${await estimateLineOf(() => analysisEstimate(run, profilesFile))}\n`);
    await startRun(client, run, input);
    process.stderr.write(`started ${workflowId}; watch it in the Web UI or with: ${await describeCommand(workflowId)}\n`);
    action = 'started';
  }
  if (options.detach) {
    if (options.json) printJson('analysis-started', 1, { runId, workflowId, action, next: runCommand.analysisRun(runId) });
    return;
  }
  await follow(handle, analysisFormat(client, options.json));
}

/** Or why there is none. */
async function live(run: LocatedRun): Promise<AnalysisProgress | string> {
  try {
    const client = await connectClient();
    const handle = client.workflow.getHandle(analysisWorkflowId(await knownCheckoutId(run.parameters.checkout), run.runId));
    if ((await describe(handle, run)) === undefined) return 'no workflow for it on the server';
    const timeout = new Promise<string>((done) => setTimeout(() => done('no worker answered within 5 s'), 5000).unref());
    return await Promise.race([handle.query(progressQuery), timeout]);
  } catch (error) {
    return (error as Error).message.split('\n')[0] ?? String(error);
  }
}

/** `analysis inspect <run-id>`: the whole run, live while it runs, from the run directory once it has finished (or without a server). */
export async function runInspect(runId: string, options: { json?: boolean; kb?: string }): Promise<void> {
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
      printJson('analysis-inspect', 1, { runId, status: 'prepared', worktree: run.worktree, runDir: run.runDir, readFrom: where, parameters });
      return;
    }
    process.stdout.write(
      `run ${runId} of ${parameters.system}: prepared, not started\n  worktree ${run.worktree}\n  start it with: ${runnable(runCommand.analysisRun(runId), run.parameters.checkout)}\n`,
    );
    return;
  }
  if (options.json) {
    const next = nextStep(progress.stops, progress.status, analysisNext(runId), progress.spend)?.command;
    printJson('analysis-inspect', 1, { ...progress, worktree: run.worktree, parameters: run.parameters, readFrom: where, ...(next !== undefined && { next }) });
    return;
  }
  process.stdout.write(`${rendered(formatInspect(progress, where))}\n`);
}
