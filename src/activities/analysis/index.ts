import { assemble, publishArtifact } from './artifact.js';
import type { FaultPoints } from '../faults.js';
import { assertEnvironment } from './assert-environment.js';
import { checkCandidate } from './check-candidate.js';
import { prepareLaunch } from './launch-dir.js';
import { acquireSource, openAnalysis } from './open-run.js';
import { recordRun } from './run-record.js';
import type { AssembleInput, CheckInput, EnvironmentInput, PrepareLaunchInput, PublishInput } from './types.js';
import { createAnalysisWorkerState } from './worker-state.js';

/** All of an analysis run's I/O but the launches themselves, over one worker state. */
export function createAnalysisActivities(dependencies: { faults?: FaultPoints } = {}) {
  const { faults } = dependencies;
  const worker = createAnalysisWorkerState();
  return {
    openAnalysis,
    assertEnvironment: (input: EnvironmentInput) => assertEnvironment(worker, input),
    acquireSource,
    prepareLaunch: (input: PrepareLaunchInput) => prepareLaunch(worker, input),
    checkCandidate: (input: CheckInput) => checkCandidate(worker, input),
    recordRun,
    assemble: (input: AssembleInput) => assemble(worker, input),
    publishArtifact: (input: PublishInput) => publishArtifact(worker, input, faults),
  };
}
