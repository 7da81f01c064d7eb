import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../../activities/index.js';
import type { PreparedAsk } from '../../review/edit/types.js';
import { launchOnce } from '../asking/ask.js';
import { keyedAsk } from '../asking/answers.js';
import type { TryOutcome } from '../asking/checked.js';
import type { EditAnswer, EditRun } from './edit-run.js';
import type { RunContext } from './steps.js';

/** The activities that prepare and accept an editing run's asks. */
export const askActivities = proxyActivities<Activities>({ startToCloseTimeout: '2m', heartbeatTimeout: '30s', retry: { maximumAttempts: 5 } });

export interface EditJob {
  /** The job's name in its launch directory and launch ID (`edit`, `review-<unit>`, `pass-<pass>`). */
  name: string;
  attempt: number;
  summary: string;
  /** Digests of what the ask is handed beyond its prompt (the text it reads, the reviews an editor reads). */
  inputs: Record<string, string>;
}

/**
 * Prepares one ask, then asks it once per answer key: an answered key is checked again from the earlier launch's directory. Callers hand
 * back its promise as it is (no `async` wrapper), so parallel asks issue their commands in the order recorded histories hold.
 */
export async function askJob<I, A, P extends PreparedAsk = PreparedAsk>(
  run: EditRun,
  ctx: RunContext,
  job: EditJob,
  prepare: (seq: number) => Promise<P>,
  accept: (answer: EditAnswer<P>) => Promise<TryOutcome<I, A>>,
): Promise<TryOutcome<I, A>> {
  const seq = ++ctx.seq;
  const asked = await prepare(seq);
  const { profile, runId } = ctx.prepared;
  return keyedAsk(
    run.answers,
    { prompt: asked.prompt, inputs: job.inputs, outputs: asked.outputs, profile: profile.name },
    {
      // One key is one prompt, so the earlier answer was prepared the same way (`P`).
      answered: (earlier) => accept(earlier as EditAnswer<P>),
      launch: (keep) => {
        run.launches += 1;
        return launchOnce(
          { launchId: `${runId}/${seq}-${job.name}/${job.attempt}`, profile, dir: asked.dir, prompt: asked.prompt, outputs: asked.outputs },
          job.summary,
          // Kept as it is checked (the check of the same output always comes out the same); the accept's own promise is handed back.
          (result) => {
            keep({ asked, result });
            return accept({ asked, result });
          },
          undefined,
          run.lifecycle.spend,
        );
      },
    },
  );
}
