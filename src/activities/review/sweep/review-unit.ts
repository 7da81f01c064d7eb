/**
 * A model-API unit's try as one activity on the checkout's host: a request needs no process, so it runs where the inputs are. The answer
 * is recorded as it arrives, so a retried activity and every later execution of the run adopt it instead of asking again.
 */
import { readFile } from 'node:fs/promises';
import type { LaunchInput, LaunchResult } from '../../../harness/launch-contract.js';
import type { Profile } from '../../../harness/profiles.js';
import type { Finding } from '../../../kb/findings.js';
import type { AcceptOutcome, CompareTarget, SweepUnit } from '../../../review/sweep-types.js';
import { noFaults, type FaultPoints } from '../../faults.js';
import { judgeAnswer } from './accept.js';
import { activityOwner, findAnswer, recordAnswer, restoreOutputs } from './answers.js';
import { captureInputs } from './capture.js';
import { profilesFile, runDirOf } from './run-dir.js';

/** By run directory: every unit of a sweep reads the same. */
const prepared = new Map<string, Record<string, Profile>>();

async function runProfile(checkout: string, runId: string, name: string): Promise<Profile> {
  const file = profilesFile(runDirOf(checkout, runId));
  let profiles = prepared.get(file);
  if (profiles?.[name] === undefined) {
    profiles = JSON.parse(await readFile(file, 'utf8')) as Record<string, Profile>;
    if (prepared.size >= 16) prepared.delete(prepared.keys().next().value as string);
    prepared.set(file, profiles);
  }
  const profile = profiles[name];
  if (profile === undefined) throw new Error(`${file}: no profile ${name}`);
  return profile;
}

export interface ReviewUnitInput {
  runId: string;
  checkout: string;
  unit: SweepUnit;
  attempt: number;
  /** Absent: none. */
  findings?: Finding[];
  /** The activity reads the profile the run prepared (`profiles.json`). */
  profile: string;
  /** `sweepGuardBaseline`: an answer that came while the KB changed is not accepted. */
  guard: string;
  maxOutputBytes?: number;
  compare?: CompareTarget;
}

/** The rest stays in the run's answers. */
export type LaunchFigures = Omit<
  LaunchResult,
  | 'launchId'
  | 'profile'
  | 'harness'
  | 'outputs'
  | 'logDir'
  | 'outputBytes'
  | 'oversize'
  | 'strayWrites'
  | 'turns'
  | 'toolUses'
  | 'modelSource'
  | 'exitCode'
  | 'missing'
  | 'timedOut'
> &
  Partial<Pick<LaunchResult, 'missing' | 'timedOut'>>;

export interface ReviewUnitResult {
  /** `adopted` when an earlier execution had answered the same ask (counted then). */
  launch: LaunchFigures;
  /** Empty lists left out; absent when the launch timed out or missed its output. */
  check?: Partial<AcceptOutcome>;
}

/** Over the launch activity's own function: the request, as any launch makes it. */
export function createReviewUnit(dependencies: { launch: (input: LaunchInput) => Promise<LaunchResult>; faults?: FaultPoints }) {
  const faults = dependencies.faults ?? noFaults;
  /** Capture, request (or the run's answer to the same ask), accept. */
  return async function reviewUnit(input: ReviewUnitInput): Promise<ReviewUnitResult> {
    const profile = await runProfile(input.checkout, input.runId, input.profile);
    const { files: _files, ...captured } = await captureInputs({ ...input, findings: input.findings ?? [] });
    const owner = activityOwner();
    const recorded = input.unit.reask ? undefined : await findAnswer(input.checkout, input.runId, captured.answer);
    let launch: LaunchResult;
    if (recorded !== undefined) {
      await restoreOutputs(recorded, captured.dir);
      // This activity's own answer (an earlier attempt of it recorded it) is still to be counted; another's was counted by its run.
      launch = recorded.owner === owner ? recorded.launch : { ...recorded.launch, adopted: true };
    } else {
      const launchId = `${input.runId}/${input.unit.key}/${input.attempt}`;
      launch = await dependencies.launch({ launchId, profile, dir: captured.dir, prompt: captured.prompt, outputs: captured.outputs });
      if (launch.timedOut || launch.missing.length > 0) return { launch: figures(launch) };
      await recordAnswer(input.checkout, input.runId, captured.answer, { owner, launch }, captured.dir);
      await faults.at('answer-recorded');
    }
    // Judged here from the answer in hand: the capture and the output are in the launch directory already.
    const { findings: _findings, attempt: _attempt, profile: _profile, ...judging } = input;
    const check = await judgeAnswer(judging, captured.dir, captured, launch);
    const { rejected, staleOnArrival, ...judged } = check;
    return { launch: figures(launch), check: { ...judged, ...(rejected.length > 0 && { rejected }), ...(staleOnArrival.length > 0 && { staleOnArrival }) } };
  };
}

/** Without what the workflow knows or a request always reports the same (one turn, no tools, exit 0). */
function figures(launch: LaunchResult): LaunchFigures {
  const {
    launchId: _id,
    profile: _profile,
    harness: _harness,
    outputs: _outputs,
    logDir: _logDir,
    outputBytes: _bytes,
    oversize: _oversize,
    strayWrites: _strays,
    ...kept
  } = launch;
  const { turns: _turns, toolUses: _tools, modelSource: _source, exitCode: _exit, missing, timedOut, usage, ...rest } = kept;
  // Only what was counted: a cache the request did not touch says nothing.
  const counted = usage && {
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    ...Object.fromEntries(Object.entries(usage).filter(([kind, count]) => kind.startsWith('cache') && count !== 0)),
  };
  return { ...rest, usage: counted, ...(missing.length > 0 && { missing }), ...(timedOut && { timedOut }) };
}
