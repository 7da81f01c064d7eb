/**
 * The analysis activities: all of a run's I/O — opening, the environment assertion, acquisition,
 * launch directories, candidate checks, run records, assembly and publication — each a plain
 * function in the module of what it does. The harness launches themselves are the spine's `launch`
 * activity. What a worker keeps across them (type registries, layouts, asserted runs) is one
 * `AnalysisWorkerState`, handed to the activities that use it.
 */
import { assemble, publishArtifact } from './artifact.js';
import type { FaultPoints } from '../faults.js';
import { assertEnvironment } from './assert-environment.js';
import { checkCandidate } from './check-candidate.js';
import { prepareLaunch } from './launch-dir.js';
import { acquireSource, openAnalysis } from './open-run.js';
import { recordRun } from './run-record.js';
import type { AssembleInput, CheckInput, EnvironmentInput, PrepareLaunchInput, PublishInput } from './types.js';
import { createAnalysisWorkerState } from './worker-state.js';

/** Builds the analysis activities over one worker state (no dependencies beyond the filesystem, and a test's fault points). */
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
