import { ApplicationFailure, proxyActivities, workflowInfo } from '@temporalio/workflow';
import { STATE_ROOT } from '../checkout/places.js';
import type { Activities, PrepareProbeInput } from '../activities/index.js';
import { probeProgressQuery, probeResumeUpdate, type ProbeProgress } from './messages.js';
import { ask, type AskOutcome } from './asking/ask.js';
import { Lifecycle } from './lifecycle.js';

const { prepareProbe } = proxyActivities<Activities>({ startToCloseTimeout: '1m', heartbeatTimeout: '30s', retry: { maximumAttempts: 3 } });

export interface ProbeResult {
  profile: string;
  harness: string;
  dir: string;
  outcome: AskOutcome;
}

export { probeProgressQuery as progressQuery, probeResumeUpdate as resumeUpdate, type ProbeProgress } from './messages.js';

/** One launch of a profile's harness; any outcome but completed fails the probe (`probe-failed`), so the Web UI and `CommonplaceStatus` agree. */
export async function probe(input: PrepareProbeInput): Promise<ProbeResult> {
  const lifecycle = new Lifecycle<ProbeProgress>({
    runId: workflowInfo().workflowId,
    view: { headline: (stage) => stage, next: { resume: `commonplace probe ${input.profile}`, ended: `commonplace probe ${input.profile}` } },
    autoResume: false,
    progress: { query: probeProgressQuery, build: (common) => ({ ...common, profile: input.profile }) },
    updates: { resume: probeResumeUpdate },
  });
  return lifecycle.close(
    async () => {
      lifecycle.at(`probing profile **${input.profile}**`);
      const prepared = await prepareProbe.executeWithOptions({ summary: `prepare the probe of profile ${input.profile}` }, [input]);
      lifecycle.at(`launching ${prepared.profile.harness} (profile ${prepared.profile.name})`);
      const outcome = await ask(
        {
          launchId: `${workflowInfo().workflowId}/probe`,
          profile: prepared.profile,
          dir: prepared.dir,
          prompt: prepared.prompt,
          outputs: prepared.outputs,
          // A directory under the launching worker's own state (any worker may launch it) is written by the launch itself;
          // a model-API probe's inputs travel with it wherever it runs.
          ...((prepared.dir.startsWith(STATE_ROOT) || prepared.files) && { files: { 'prompt.md': prepared.prompt, ...prepared.files } }),
        },
        `probe launch: ${prepared.profile.name}`,
      );
      const result: ProbeResult = { profile: prepared.profile.name, harness: prepared.profile.harness, dir: prepared.dir, outcome };
      if (outcome.status === 'completed') {
        lifecycle.complete('completed', `probe finished: ${outcome.status}`);
        return result;
      }
      lifecycle.at(`probe finished: ${outcome.status}`);
      throw ApplicationFailure.create({
        type: 'probe-failed',
        nonRetryable: true,
        message: `probe of profile ${prepared.profile.name}: the launch came to ${outcome.status}`,
        details: [result],
      });
    },
    (stop) => Promise.reject(ApplicationFailure.create({ type: 'bad-run', nonRetryable: true, message: `a probe cannot end on ${stop.kind}` })),
  );
}
