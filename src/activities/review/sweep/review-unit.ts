/**
 * A model-API unit's try as one activity on the checkout's host: the capture, the request (or the run's
 * recorded answer to the same ask), the accept — the steps and modules of a CLI unit's try, whose launch
 * runs on any worker in between. A request needs no process of its own, so it runs where the inputs are.
 * The answer is recorded as it arrives: a retry of this activity (its worker died after the answer came)
 * and every later execution of the run adopt it instead of asking again.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { LaunchInput, LaunchResult } from '../../../harness/launch-contract.js';
import type { Profile } from '../../../harness/profiles.js';
import type { Finding } from '../../../kb/findings.js';
import type { AcceptOutcome, CompareTarget, SweepUnit } from '../../../review/sweep-types.js';
import { noFaults, type FaultPoints } from '../../faults.js';
import { acceptUnit } from './accept.js';
import { activityOwner, findAnswer, recordAnswer } from './answers.js';
import { captureInputs } from './capture.js';

export interface ReviewUnitInput {
  runId: string;
  checkout: string;
  unit: SweepUnit;
  attempt: number;
  findings: Finding[];
  launchId: string;
  profile: Profile;
  /** The batch's KB snapshot (`sweepGuardBaseline`): an answer that came while the KB changed is not accepted. */
  guard: string;
  maxOutputBytes?: number;
  compare?: CompareTarget;
}

export interface ReviewUnitResult {
  /** The launch that answered (`adopted` when an earlier execution of the run had answered the same ask: counted then). */
  launch: LaunchResult;
  /** The accept's outcome; absent when the launch timed out or missed its output. */
  check?: AcceptOutcome;
}

/** Builds the activity over the launch activity's own function (the request, as any launch makes it). */
export function createReviewUnit(dependencies: { launch: (input: LaunchInput) => Promise<LaunchResult>; faults?: FaultPoints }) {
  const faults = dependencies.faults ?? noFaults;
  /** Asks one model-API unit and accepts its answer: capture, request (or the run's answer to the same ask), accept. */
  return async function reviewUnit(input: ReviewUnitInput): Promise<ReviewUnitResult> {
    const { files: _files, ...captured } = await captureInputs({ ...input, profile: input.profile.name });
    const owner = activityOwner();
    const recorded = input.unit.reask ? undefined : await findAnswer(input.checkout, input.runId, captured.answer);
    let launch: LaunchResult;
    if (recorded !== undefined) {
      // This activity's own answer (an earlier attempt of it recorded it) is still to be counted; another's was counted by its run.
      launch = recorded.owner === owner ? recorded.launch : { ...recorded.launch, adopted: true };
    } else {
      launch = await dependencies.launch({ launchId: input.launchId, profile: input.profile, dir: captured.dir, prompt: captured.prompt, outputs: captured.outputs });
      if (launch.timedOut || launch.missing.length > 0) return { launch };
      const output = await readFile(join(captured.dir, captured.outputs[0]!));
      await recordAnswer(input.checkout, input.runId, captured.answer, { owner, launch, outputs: { [captured.outputs[0]!]: output.toString('base64') } });
      await faults.at('answer-recorded');
    }
    const check = await acceptUnit({
      runId: input.runId,
      checkout: input.checkout,
      unit: input.unit,
      attempt: input.attempt,
      guard: input.guard,
      ...(input.maxOutputBytes !== undefined && { maxOutputBytes: input.maxOutputBytes }),
      ...(input.compare !== undefined && { compare: input.compare }),
    });
    return { launch, check };
  };
}
