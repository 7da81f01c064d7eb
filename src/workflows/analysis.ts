import type { AnalysisInput, AnalysisResult } from '../analysis/progress.js';
import {
  BOUNDARY,
  LENSES,
  MEMORY_PROFILE,
  PROFILE_VERIFICATION,
  RECONCILIATION,
  REPORT_GROUP,
  REPORT_VERIFICATION,
  RUNTIME_REPORT,
  SYNTHESIS,
  SYNTHESIS_VERIFICATION,
} from '../analysis/roles.js';
import { assemble, ended } from './analysis/assembly.js';
import { recheck, verify } from './analysis/cascade.js';
import { produce } from './analysis/produce.js';
import { AnalysisRun, io } from './analysis/run.js';

export { progressQuery, resumeUpdate } from './analysis/run.js';

/** One analysis run in the design's order, as ordinary calls; a stop waits for `resume` and asks nothing that completed again. */
export async function analysis(input: AnalysisInput): Promise<AnalysisResult> {
  const run = new AnalysisRun(input);
  return run.lifecycle.close(
    () => analyse(run),
    (stop) => ended(run, stop),
  );
}

async function analyse(run: AnalysisRun): Promise<AnalysisResult> {
  const { input } = run;
  // Opening.
  run.lifecycle.record();
  run.lifecycle.at('opening');
  run.opened = await io('open the run').openAnalysis({
    runDir: input.runDir,
    worktree: input.worktree,
    ...(input.profilesFile !== undefined && { profilesFile: input.profilesFile }),
    ...(input.env !== undefined && { env: input.env }),
  });
  for (const role of Object.values(run.plan.roles)) run.budgets[role.name] = { used: 0, max: role.attempts };
  await run.record();
  await run.ensureEnvironment('at start');

  run.enter('acquisition');
  run.source = await run.withStops(() =>
    io('freeze the source', { startToCloseTimeout: '1h', heartbeatTimeout: '30s' }).acquireSource({ runDir: input.runDir }),
  );

  // The boundary, which may end the run.
  run.enter('boundary');
  const boundary = await produce(run, BOUNDARY, run.current(), { kind: 'write' });
  const boundaryDisposition = boundary.check.disposition ?? 'published';
  if (boundaryDisposition !== 'published') return assemble(run, boundaryDisposition);

  run.enter('runtime report');
  await produce(run, RUNTIME_REPORT, run.current(), { kind: 'write' });

  run.enter('lens reports');
  const lensRound = run.current();
  await Promise.all(LENSES.map((lens) => produce(run, lens, lensRound, { kind: 'write' })));

  run.enter('reconciliation');
  await produce(run, RECONCILIATION, run.current(), { kind: 'write' });

  run.enter('report check');
  await recheck(run, 'report-check', REPORT_GROUP);
  await verify(run, REPORT_VERIFICATION, 'report verification');

  run.enter('memory profile');
  await produce(run, MEMORY_PROFILE, run.current(), { kind: 'write' });
  await verify(run, PROFILE_VERIFICATION, 'profile verification');

  run.enter('synthesis');
  await produce(run, SYNTHESIS, run.current(), { kind: 'write' });
  await verify(run, SYNTHESIS_VERIFICATION, 'synthesis verification');

  return assemble(run, 'published');
}
