import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createActivities, type ActivityDependencies } from './activities/index.js';
import { packageRoot, sourceExtension } from './paths.js';
import { TASK_QUEUE } from './search-attributes.js';

export const workflowsPath = join(dirname(fileURLToPath(import.meta.url)), 'workflows', `index${sourceExtension}`);
export const fakeHarnessPath = join(packageRoot(), 'bin', 'fake-harness.js');

export interface WorkerSettings {
  connection: NativeConnection;
  namespace: string;
  /** Where run state this worker writes lives. */
  stateDir: string;
  taskQueue?: string;
  /** A prebuilt workflow bundle (tests build one per run); otherwise the workflows are bundled at start. */
  workflowBundle?: WorkerOptions['workflowBundle'];
  maxConcurrentActivityTaskExecutions?: number;
  /** Replacements for the activities' dependencies (a fixed clock, a time zone) in tests. */
  activityDependencies?: Partial<ActivityDependencies>;
}

/** Builds the one kind of worker the project has: every workflow and activity, on the `commonplace` task queue. */
export async function createWorker(settings: WorkerSettings): Promise<Worker> {
  return Worker.create({
    connection: settings.connection,
    namespace: settings.namespace,
    taskQueue: settings.taskQueue ?? TASK_QUEUE,
    ...(settings.workflowBundle ? { workflowBundle: settings.workflowBundle } : { workflowsPath }),
    activities: createActivities({ fakeHarnessPath, stateDir: settings.stateDir, ...settings.activityDependencies }),
    ...(settings.maxConcurrentActivityTaskExecutions !== undefined && {
      maxConcurrentActivityTaskExecutions: settings.maxConcurrentActivityTaskExecutions,
    }),
  });
}
