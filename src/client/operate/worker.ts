import type { Command } from 'commander';
import { action } from '../shared/errors.js';
import { examples } from '../shared/help-text.js';
import { heartbeatThrottleOption, kbDirectories, maxLaunchesOption, workflowThreadsOption } from './worker-options.js';

export interface WorkerCommandOptions {
  state: string;
  maxLaunches: string;
  kb: string[];
  kbList?: string;
  metrics?: string;
  heartbeatThrottle?: string;
  workflowThreads?: string;
}

const collect = (value: string, previous: string[]) => [...previous, value];

/** `commonplace worker`: one worker against TEMPORAL_ADDRESS / TEMPORAL_NAMESPACE; run as many as the work needs. */
export function registerWorker(program: Command): void {
  program
    .command('worker')
    .description(
      'run a worker against TEMPORAL_ADDRESS / TEMPORAL_NAMESPACE until Ctrl-C: launches on task queue "commonplace", and the checkout work of each checkout it holds',
    )
    .option(
      '--kb <dir>',
      'a KB checkout this worker holds: it serves the checkout\'s task queue (repeatable; also COMMONPLACE_KB, separated by ":")',
      collect,
      [] as string[],
    )
    .option('--kb-list <file>', 'a file of checkout directories, one per line, held as they are added (COMMONPLACE_KB_LIST)', process.env.COMMONPLACE_KB_LIST)
    .option('--state <dir>', 'directory for run state this worker writes (COMMONPLACE_STATE_DIR)', process.env.COMMONPLACE_STATE_DIR ?? '.commonplace')
    .option('--max-launches <n>', 'harness launches this worker runs at once', '8')
    .option(
      '--metrics <addr>',
      'serve Prometheus metrics at PORT (on 127.0.0.1) or HOST:PORT, path /metrics (COMMONPLACE_METRICS)',
      process.env.COMMONPLACE_METRICS,
    )
    .option(
      '--heartbeat-throttle <seconds>',
      "the longest a running launch's heartbeats are held back, so the longest a cancelled run's harness runs on (COMMONPLACE_HEARTBEAT_THROTTLE; default the SDK's: 80 % of the heartbeat timeout, 12 s for a launch); each heartbeat sent is a server call (a billed action on Temporal Cloud)",
      process.env.COMMONPLACE_HEARTBEAT_THROTTLE,
    )
    .option(
      '--workflow-threads <n>',
      "threads that run workflow code, 0 to 16 (COMMONPLACE_WORKFLOW_THREADS; default the SDK's 1, off the activities' event loop); 0 runs it on the main thread, as the SDK's debug mode does (no 5 s limit on one activation), and starts about half a CPU second quicker",
      process.env.COMMONPLACE_WORKFLOW_THREADS,
    )
    .addHelpText(
      'after',
      `\nA worker that holds no checkout runs review launches only: add such workers on other hosts to widen a sweep.\n${examples(
        'commonplace worker --kb ~/notes',
        'TEMPORAL_ADDRESS=temporal.internal:7233 commonplace worker --state /var/lib/commonplace --max-launches 4',
        'commonplace worker --kb ~/notes --metrics 9464',
      )}`,
    )
    .action(
      action(async (options: WorkerCommandOptions) => {
        const maxLaunches = maxLaunchesOption(options.maxLaunches);
        const heartbeatThrottle = heartbeatThrottleOption(options.heartbeatThrottle);
        const workflowThreads = workflowThreadsOption(options.workflowThreads);
        // Loading the Temporal SDK and the activities takes seconds on a busy machine: say so before it starts.
        process.stderr.write('loading the worker (the Temporal SDK, the activities)...\n');
        await (
          await import('./worker-run.js')
        ).runWorker({
          state: options.state,
          maxLaunches,
          kb: kbDirectories(options.kb),
          ...(options.kbList !== undefined && { kbList: options.kbList }),
          ...(options.metrics !== undefined && { metrics: options.metrics }),
          ...(heartbeatThrottle !== undefined && { heartbeatThrottle }),
          ...(workflowThreads !== undefined && { workflowThreads }),
        });
      }),
    );
}
