/** A prepared run's worktree is the one on branch `analysis/<run-id>`. */
import { access, readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { parametersSchema, type RunParameters } from '../../analysis/parameters.js';
import { parametersFile, runDirOf } from '../../analysis/run-dir.js';
import { parseRunId, runBranch } from '../../analysis/run-id.js';
import { worktrees } from './git.js';
import { readResetRecord } from './reset.js';
import { runCommand } from '../../runs/run-commands.js';

export class RunNotFoundError extends Error {
  override name = 'RunNotFoundError';
}

export interface LocatedRun {
  runId: string;
  worktree: string;
  runDir: string;
  parameters: RunParameters;
}

/** A missing or malformed parameters.json names the file. */
export async function readParameters(runDir: string): Promise<RunParameters> {
  const file = parametersFile(runDir);
  const text = await readFile(file, 'utf8').catch(async () => {
    throw new RunNotFoundError(await missingRunReason(runDir, file));
  });
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new RunNotFoundError(`${file} is not JSON: ${(error as Error).message}`);
  }
  const parsed = parametersSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new RunNotFoundError(`${file}: ${issue?.path.join('.') || '(top level)'}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
}

/** A worker must see the worktrees at the paths of the host that prepared the run (docs/compose.md). */
async function missingRunReason(runDir: string, file: string): Promise<string> {
  const worktree = path.dirname(path.dirname(path.dirname(runDir)));
  const where = `${process.pid}@${hostname()}`;
  const present = await access(worktree).then(
    () => true,
    () => false,
  );
  if (!present) {
    return `${file} is missing: the run worktree ${worktree} is not on ${where} (a worker must see the checkout and its worktrees at the paths of the host that prepared the run; see docs/compose.md)`;
  }
  return `${file} is missing on ${where}: the run was not prepared, or its state was removed`;
}

/** Finds a run of this checkout by its ID, or says why there is none. */
export async function locateRun(checkout: string, runId: string): Promise<LocatedRun> {
  if (parseRunId(runId) === undefined) throw new RunNotFoundError(`"${runId}" is not a run ID (AAS-<YYYY-MM-DD>-<system>-<nn>)`);
  const branch = runBranch(runId);
  const found = (await worktrees(checkout)).find((entry) => entry.branch === branch);
  const reset = await readResetRecord(checkout, runId).catch(() => undefined);
  if (reset !== undefined) {
    throw new RunNotFoundError(
      reset.state === 'reset'
        ? `run ${runId} was reset at ${reset.finishedAt ?? reset.startedAt}: it is gone (prepare a new run with \`commonplace analysis prepare\`)`
        : `run ${runId} is being reset (begun ${reset.startedAt}): finish it with \`${runCommand.analysisReset(runId, 'yes')}\`, then prepare a new run`,
    );
  }
  if (found === undefined)
    throw new RunNotFoundError(`no run ${runId} in ${checkout}: no worktree has branch ${branch} (prepare one with \`commonplace analysis prepare\`)`);
  const runDir = runDirOf(found.path, runId);
  return { runId, worktree: found.path, runDir, parameters: await readParameters(runDir) };
}
