import { proxyActivities, setCurrentDetails, workflowInfo } from '@temporalio/workflow';
import type { Activities, PrepareProbeInput } from '../activities/index.js';
import { ask, type AskOutcome } from './helpers/ask.js';
import { recordStatus } from './helpers/status.js';

const { prepareProbe } = proxyActivities<Activities>({ startToCloseTimeout: '1m', retry: { maximumAttempts: 3 } });

export interface ProbeResult {
  profile: string;
  harness: string;
  dir: string;
  outcome: AskOutcome;
}

/** Checks a worker profile end to end: one launch of its harness, its outcome returned as the launch activity saw it. */
export async function probe(input: PrepareProbeInput): Promise<ProbeResult> {
  setCurrentDetails(`probing profile **${input.profile}**`);
  const prepared = await prepareProbe(input);
  setCurrentDetails(`launching ${prepared.profile.harness} (profile ${prepared.profile.name})`);
  const outcome = await ask(
    { launchId: `${workflowInfo().workflowId}/probe`, profile: prepared.profile, dir: prepared.dir, prompt: prepared.prompt, outputs: prepared.outputs },
    `probe launch: ${prepared.profile.name}`,
  );
  setCurrentDetails(`probe finished: ${outcome.status}`);
  recordStatus(outcome.status === 'completed' ? 'completed' : 'failed');
  return { profile: prepared.profile.name, harness: prepared.profile.harness, dir: prepared.dir, outcome };
}
