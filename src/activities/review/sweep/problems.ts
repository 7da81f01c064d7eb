/** A sweep's problem pairs and its summary, kept in the run directory. */
import { appendFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../../../fs/atomic.js';
import type { SweepProblem, SweepProgress, SweepSummary } from '../../../review/sweep-types.js';
import { problemsFile, runDirOf } from './run-dir.js';

/** The problem pairs a sweep recorded so far. */
export async function readProblems(runDir: string): Promise<SweepProblem[]> {
  const text = await readFile(problemsFile(runDir), 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as SweepProblem);
}

/** Appends a batch's problem pairs to the run directory, where `review retry` finds them. */
export async function recordProblems(input: { checkout: string; runId: string; problems: SweepProblem[] }): Promise<void> {
  await appendFile(problemsFile(runDirOf(input.checkout, input.runId)), input.problems.map((problem) => `${JSON.stringify(problem)}\n`).join(''));
}

/** Writes the sweep's summary beside its results and returns it with the first problems. */
export async function finishSweep(input: { checkout: string; runId: string; progress: SweepProgress; runDir: string }): Promise<SweepSummary> {
  const problems = await readProblems(input.runDir);
  const summary: SweepSummary = { ...input.progress, runDir: input.runDir, problems: problems.slice(0, 100) };
  await writeFileAtomic(join(input.runDir, 'summary.json'), `${JSON.stringify({ ...summary, problems: problems.length }, null, 2)}\n`);
  return summary;
}
