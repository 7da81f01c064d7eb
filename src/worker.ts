import { Client } from '@temporalio/client';
import { NativeConnection, Worker, type ActivityInterceptorsFactory, type State, type WorkerOptions, type WorkerPlugin } from '@temporalio/worker';
import { join } from 'node:path';
import type { FaultPoints } from './activities/faults.js';
import { reapClosedTries, runStateOn } from './activities/harness/reap.js';
import { createActivities, type ActivityDependencies } from './activities/index.js';
import { checkoutAt, checkoutQueue, HostPlaces, type HeldCheckout } from './checkout/index.js';
import { packageRoot } from './paths.js';
import { runGitThroughHelper } from './fs/git.js';
import { releaseStamp } from './release-stamp.js';
import { TASK_QUEUE } from './search-attributes.js';
import { DEPLOYMENT_NAME, installedRelease, workflowInterceptorModules, workflowsPath } from './workflow-code.js';

export const fakeHarnessPath = join(packageRoot(), 'bin', 'fake-harness.js');

/**
 * Where a crash test makes this worker fail: at the named points inside activities, and around whole
 * activities (an interceptor, for a fault at an activity's start or end). Only test fixtures set it.
 */
export interface WorkerFaults {
  points?: FaultPoints;
  interceptors?: ActivityInterceptorsFactory[];
}

export interface WorkerSettings {
  connection: NativeConnection;
  namespace: string;
  /** Where run state this worker writes lives. */
  stateDir: string;
  /** The checkouts this worker holds: it serves each one's task queue besides the shared one. */
  checkouts?: HeldCheckout[];
  taskQueue?: string;
  /**
   * The workflow code, bundled with its interceptors, and its release (src/workflow-code.ts): the prebuilt bundle
   * or one bundled at start (src/workflow-bundle.ts), the test run's (test/helpers/global-setup.js). Otherwise the
   * installed workflows are bundled at start, under the installed code's release.
   */
  workflowCode?: { bundle: NonNullable<WorkerOptions['workflowBundle']>; release: string };
  maxConcurrentActivityTaskExecutions?: number;
  /** Replacements for the activities' dependencies (a fixed clock, a time zone) in tests. */
  activityDependencies?: Partial<ActivityDependencies>;
  /** SDK plugins every worker of the process carries (traces: src/observability/tracing.ts); a prebuilt bundle must have been built with them. */
  plugins?: WorkerPlugin[];
  /** Test fixtures' faults (test/helpers/faults.ts); production workers have none. */
  faults?: WorkerFaults;
  /** How long the server keeps a run's next workflow task for this worker before any worker may take it (the SDK's default, 10 s, unless set). */
  stickyQueueScheduleToStartTimeout?: WorkerOptions['stickyQueueScheduleToStartTimeout'];
  /**
   * The longest an activity's heartbeats are held back before one is sent (the SDK's: 80 % of the heartbeat
   * timeout, so 12 s for a launch, unless set). A cancellation reaches a running activity with its next heartbeat sent.
   */
  heartbeatThrottle?: WorkerOptions['maxHeartbeatThrottleInterval'];
  /**
   * The threads the shared worker runs workflow code in (the SDK's default, 1, keeps it off the event loop the
   * activities run on); 0 runs it on the main thread, as the SDK's debug mode does (without its 5 s limit on one
   * activation). A thread's start costs about half a CPU second — nothing to a worker that runs for hours, most
   * of the cost of the seconds-long workers the tests create by the hundred.
   */
  workflowThreads?: number;
}

/**
 * The options that name the code a worker runs: its release as the build ID of the project's worker deployment, so
 * each workflow task in a history (and the Web UI) names the code that ran it. Worker Versioning's routing stays off
 * (docs/upgrading.md, "Why patches, and not Worker Versioning's routing").
 */
const deploymentOptions = (release: string): Pick<WorkerOptions, 'workerDeploymentOptions'> => ({
  workerDeploymentOptions: { version: { deploymentName: DEPLOYMENT_NAME, buildId: release }, useWorkerVersioning: false },
});

/** The worker options a setting of this process's workers gives every worker it creates, the shared queue's and each checkout's. */
function throttleOptions(settings: WorkerSettings): Pick<WorkerOptions, 'maxHeartbeatThrottleInterval' | 'defaultHeartbeatThrottleInterval'> {
  return settings.heartbeatThrottle === undefined
    ? {}
    : { maxHeartbeatThrottleInterval: settings.heartbeatThrottle, defaultHeartbeatThrottleInterval: settings.heartbeatThrottle };
}

/**
 * The SDK's options for `workflowThreads`. The SDK runs workflow code on the main thread in its debug mode
 * only, which also lifts its 5 s limit on one activation's run: a workflow stuck in a loop holds the worker
 * instead of failing its task.
 */
function workflowThreadOptions(threads: number | undefined): Pick<WorkerOptions, 'workflowThreadPoolSize' | 'debugMode'> {
  if (threads === undefined) return {};
  return threads === 0 ? { debugMode: true } : { workflowThreadPoolSize: threads };
}

/**
 * The activities a worker runs at once on each checkout's queue. A sweep on a model API keeps its
 * concurrency (32 by default) of requests in flight there, whatever `--max-launches` allows the shared queue.
 */
export const CHECKOUT_QUEUE_ACTIVITIES = 64;

/**
 * One worker process's Temporal workers: the shared queue's (every workflow and activity), and one
 * per checkout it holds, polling that checkout's queue for the activities that read or write it.
 * More checkouts can be held while it runs (`hold`).
 */
export class CommonplaceWorker {
  private readonly running = new Map<string, Promise<void>>();
  private readonly checkoutWorkers = new Map<string, Worker>();
  private stopping = false;

  constructor(
    private readonly settings: WorkerSettings,
    /** The release of the workflow code it runs: its build ID, and the release its client stamps on what it starts. */
    readonly release: string,
    readonly shared: Worker,
    readonly places: HostPlaces,
    private readonly activities: ReturnType<typeof createActivities>,
  ) {}

  /** The checkouts held now. */
  checkouts(): HeldCheckout[] {
    return this.places.checkouts();
  }

  /** The shared worker's state (RUNNING until shut down). */
  getState(): State {
    return this.shared.getState();
  }

  /** Holds one more checkout: its queue is polled from now on (at once when running). Holding one already held does nothing. */
  async hold(checkout: HeldCheckout): Promise<void> {
    if (this.checkoutWorkers.has(checkout.id)) return;
    this.places.add(checkout);
    const worker = await Worker.create({
      connection: this.settings.connection,
      namespace: this.settings.namespace,
      taskQueue: checkoutQueue(checkout.id),
      activities: this.activities,
      // The activities' client (the quota gates' signal-with-start) stamps what it starts with this code's release.
      interceptors: { client: releaseStamp(this.release), ...(this.settings.faults?.interceptors && { activity: this.settings.faults.interceptors }) },
      ...deploymentOptions(this.release),
      ...(this.settings.plugins !== undefined && { plugins: this.settings.plugins }),
      // A checkout's queue carries light work — reading and writing the KB, and a model-API unit's one
      // request — never a harness process: `--max-launches` bounds the shared queue's launches, not these.
      maxConcurrentActivityTaskExecutions: Math.max(CHECKOUT_QUEUE_ACTIVITIES, this.settings.maxConcurrentActivityTaskExecutions ?? 0),
      ...throttleOptions(this.settings),
    });
    this.checkoutWorkers.set(checkout.id, worker);
    if (this.running.size > 0 && !this.stopping) this.running.set(checkout.id, worker.run());
  }

  /** Polls every queue until shut down. */
  async run(): Promise<void> {
    this.running.set('', this.shared.run());
    for (const [id, worker] of this.checkoutWorkers) this.running.set(id, worker.run());
    try {
      await this.running.get('');
    } finally {
      this.shutdown();
      // A checkout held while stopping starts no run; wait for each that did.
      await Promise.allSettled([...this.running.values()]);
    }
  }

  /** Runs until `until` settles, then shuts down; its value or failure is returned. */
  async runUntil<T>(until: Promise<T> | (() => Promise<T>)): Promise<T> {
    const running = this.run();
    try {
      return await Promise.race([
        typeof until === 'function' ? until() : until,
        running.then(() => {
          throw new Error('the worker stopped before the work it ran until ended');
        }),
      ]);
    } finally {
      this.shutdown();
      await running.catch(() => undefined);
    }
  }

  /** Stops polling every queue; work in flight finishes within the shutdown grace. */
  shutdown(): void {
    this.stopping = true;
    for (const worker of [this.shared, ...this.checkoutWorkers.values()]) {
      if (worker.getState() === 'RUNNING') worker.shutdown();
    }
  }
}

/** Builds one worker process's workers: every workflow and activity on the shared queue, and each held checkout's queue. */
export async function createWorker(settings: WorkerSettings): Promise<CommonplaceWorker> {
  // A worker lives long and grows: Git is started from a small helper process, not from it (src/fs/git.ts).
  runGitThroughHelper();
  const places = new HostPlaces({ stateDir: settings.stateDir });
  // Tries this host started whose runs closed while no worker watched them: no attempt will adopt them.
  await reapClosedTries(settings.stateDir, runStateOn(new Client({ connection: settings.connection, namespace: settings.namespace }))).catch(() => []);
  const activities = createActivities({
    fakeHarnessPath,
    stateDir: settings.stateDir,
    places,
    ...(settings.faults?.points && { faults: settings.faults.points }),
    ...settings.activityDependencies,
  });
  const activityInterceptors = settings.faults?.interceptors;
  const release = settings.workflowCode?.release ?? (await installedRelease());
  // The activities' client (the quota gates' signal-with-start) stamps what it starts with this code's release.
  const interceptors = { client: releaseStamp(release), ...(activityInterceptors && { activity: activityInterceptors }) };
  const shared = await Worker.create({
    connection: settings.connection,
    namespace: settings.namespace,
    taskQueue: settings.taskQueue ?? TASK_QUEUE,
    ...(settings.workflowCode
      ? { workflowBundle: settings.workflowCode.bundle, interceptors }
      : { workflowsPath, interceptors: { ...interceptors, workflowModules: workflowInterceptorModules } }),
    ...deploymentOptions(release),
    activities,
    ...(settings.plugins !== undefined && { plugins: settings.plugins }),
    ...(settings.maxConcurrentActivityTaskExecutions !== undefined && {
      maxConcurrentActivityTaskExecutions: settings.maxConcurrentActivityTaskExecutions,
    }),
    ...(settings.stickyQueueScheduleToStartTimeout !== undefined && { stickyQueueScheduleToStartTimeout: settings.stickyQueueScheduleToStartTimeout }),
    ...workflowThreadOptions(settings.workflowThreads),
    ...throttleOptions(settings),
  });
  const worker = new CommonplaceWorker(settings, release, shared, places, activities);
  for (const checkout of settings.checkouts ?? []) await worker.hold(checkout);
  return worker;
}

/** The checkouts named by directories (`--kb`), each with its ID. */
export async function checkoutsAt(dirs: string[]): Promise<HeldCheckout[]> {
  return Promise.all(dirs.map((dir) => checkoutAt(dir)));
}
