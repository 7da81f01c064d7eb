/** At the run's start, on every resume, and once per worker before its first launch or check, so what changed while no worker watched stops the run. */
import { writeFileAtomic } from '../../fs/atomic.js';
import { environmentFile } from '../../analysis/run-dir.js';
import { checkEnvironment } from './environment.js';
import { failure } from './failures.js';
import { readParameters } from './runs.js';
import type { EnvironmentInput, EnvironmentOutcome } from './types.js';
import type { AnalysisWorkerState } from './worker-state.js';

/** A changed environment fails the activity with its evidence. */
export async function assertedHere(asserted: AnalysisWorkerState['asserted'], runDir: string): Promise<void> {
  if (asserted.has(runDir)) return;
  const parameters = await readParameters(runDir).catch((error: Error) => {
    throw failure('bad-run', error.message);
  });
  const report = await checkEnvironment(parameters, runDir);
  if (!report.ok) {
    const evidence = environmentFile(runDir);
    await writeFileAtomic(evidence, `${JSON.stringify(report, null, 2)}\n`);
    throw failure('environment-changed', `a worker picking the run up found the environment changed: ${report.problems[0] ?? 'see the evidence'}`, {
      problems: report.problems,
      evidence,
      what: 'a worker picking the run up found the environment changed',
    });
  }
  asserted.add(runDir);
}

/** What changed goes to environment.json, the stop's evidence. */
export async function assertEnvironment(worker: Pick<AnalysisWorkerState, 'asserted'>, input: EnvironmentInput): Promise<EnvironmentOutcome> {
  const parameters = await readParameters(input.runDir).catch((error: Error) => {
    throw failure('bad-run', error.message);
  });
  const report = await checkEnvironment(parameters, input.runDir, undefined, { ...(input.publishing !== undefined && { publishing: input.publishing }) });
  if (report.ok) {
    if (input.publishing === undefined) worker.asserted.add(input.runDir);
    return { ok: true, problems: [] };
  }
  const evidence = environmentFile(input.runDir);
  await writeFileAtomic(evidence, `${JSON.stringify(report, null, 2)}\n`);
  return { ok: false, problems: report.problems, evidence };
}
