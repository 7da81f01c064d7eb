/**
 * A model-API unit asked in one activity on the checkout's host: capture → the request → the checkout
 * guard → accept, the steps a CLI unit takes as four activities (a CLI launch runs on any worker; a
 * request needs no process, so it runs where the inputs are). Each answer is recorded in the unit's
 * launch directory as it arrives (`answer.json`, naming the activity execution that asked): a retry of
 * the same activity — its worker died after the answer came — reads it instead of asking again, so
 * only a request in flight at the worker's end is asked twice.
 */
import { Context } from '@temporalio/activity';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../../../fs/atomic.js';
import type { LaunchInput, LaunchResult } from '../../../harness/launch-contract.js';
import type { Profile } from '../../../harness/profiles.js';
import type { Finding } from '../../../kb/findings.js';
import type { AcceptOutcome, CapturedUnit, CompareTarget, SweepUnit } from '../../../review/sweep-types.js';
import { noFaults, type FaultPoints } from '../../faults.js';
import { acceptUnit } from './accept.js';
import { captureUnit } from './capture.js';
import { sweepGuardCheck } from './guard.js';
import { runDirOf } from './run-dir.js';

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
  /** The capture the request was made with (its inputs stay in the launch directory). */
  captured: CapturedUnit;
  launch: LaunchResult;
  /** KB paths that changed since the batch's snapshot: when any, nothing was accepted. */
  changed: string[];
  /** The accept's outcome; absent when the launch timed out, missed its output, or the KB changed. */
  check?: AcceptOutcome;
}

/** The answer as recorded when it arrived, with the activity execution that asked for it. */
interface RecordedAnswer {
  owner: string;
  captured: CapturedUnit;
  launch: LaunchResult;
}

const answerFile = (checkout: string, runId: string, unit: SweepUnit, attempt: number) =>
  join(runDirOf(checkout, runId), 'launches', unit.key, `attempt-${attempt}`, 'answer.json');

async function recorded(file: string, owner: string): Promise<RecordedAnswer | undefined> {
  const text = await readFile(file, 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  const answer = JSON.parse(text) as RecordedAnswer;
  return answer.owner === owner ? answer : undefined;
}

/** Builds the activity over the launch activity's own function (the request, as any launch makes it). */
export function createReviewUnit(dependencies: { launch: (input: LaunchInput) => Promise<LaunchResult>; faults?: FaultPoints }) {
  const faults = dependencies.faults ?? noFaults;
  /** Asks one model-API unit and accepts its answer: capture, request (or the answer this activity already got), guard, accept. */
  return async function reviewUnit(input: ReviewUnitInput): Promise<ReviewUnitResult> {
    const info = Context.current().info;
    const owner = `${info.workflowExecution?.workflowId ?? ''}/${info.workflowExecution?.runId ?? ''}/${info.activityId}`;
    const file = answerFile(input.checkout, input.runId, input.unit, input.attempt);
    let answer = await recorded(file, owner);
    if (answer === undefined) {
      const { files: _files, launchDir: _launchDir, ...captured } = await captureUnit(input);
      const launch = await dependencies.launch({
        launchId: input.launchId,
        profile: input.profile,
        dir: captured.dir,
        prompt: captured.prompt,
        outputs: captured.outputs,
      });
      answer = { owner, captured, launch };
      await writeFileAtomic(file, JSON.stringify(answer));
      await faults.at('answer-recorded');
    }
    const { captured, launch } = answer;
    if (launch.timedOut || launch.missing.length > 0) return { captured, launch, changed: [] };
    const { changed } = await sweepGuardCheck({ checkout: input.checkout, runId: input.runId, baseline: input.guard });
    if (changed.length > 0) return { captured, launch, changed };
    const check = await acceptUnit({
      runId: input.runId,
      checkout: input.checkout,
      unit: input.unit,
      captured,
      launch,
      ...(input.maxOutputBytes !== undefined && { maxOutputBytes: input.maxOutputBytes }),
      ...(input.compare !== undefined && { compare: input.compare }),
    });
    return { captured, launch, changed: [], check };
  };
}
