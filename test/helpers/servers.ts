// One Temporal environment per test file, started in beforeAll and torn down in afterAll (the
// time-skipping server: one per test).
// Call a fixture at the top level of a test file; it returns getters, read inside tests and hooks.
import { afterAll, afterEach, beforeAll, beforeEach, expect } from '@jest/globals';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startCli } from './cli.js';
import { scratch } from './fake.js';
import { startFaultWorker } from './faults.js';
import {
  attachDevEnvironment,
  endOpenWorkflows,
  sharedDevServerAddress,
  startDevEnvironment,
  startTimeSkippingEnvironment,
  stopTestWorkers,
} from './temporal.js';

export interface ServerFixture {
  /** The state directory of the file's CLI worker (`useDevServerWithCliWorker` only): where `<state>/…` paths of its launches are. */
  workerState?(): string;
  /** The file's environment (valid once beforeAll has run). */
  env(): TestWorkflowEnvironment;
  /** The server's address, as TEMPORAL_ADDRESS for CLI processes. */
  address(): string;
}

function useEnvironment(
  start: () => Promise<TestWorkflowEnvironment>,
  stopFirst?: () => Promise<void>,
  beforeTeardown?: (env: TestWorkflowEnvironment) => Promise<void>,
): ServerFixture {
  let env: TestWorkflowEnvironment | undefined;
  beforeAll(async () => {
    env = await start();
  });
  afterAll(async () => {
    await stopFirst?.();
    if (env) await stopTestWorkers(env);
    if (env) await beforeTeardown?.(env);
    await env?.teardown();
  });
  const current = () => {
    if (!env) throw new Error('the Temporal environment is not started: read it inside a test or a hook');
    return env;
  };
  return { env: current, address: () => current().connection.options.address };
}

/** The test file's path under test/, without `.test.ts`: the label of the namespaces it registers. */
function fileLabel(): string {
  return (
    expect
      .getState()
      .testPath?.replace(/^.*\/test\//, '')
      .replace(/\.test\.ts$/, '') ?? 'file'
  );
}

/**
 * This file's dev server: its jest worker's shared server (see docs/testing.md), in a namespace of the
 * file's own, which CLI processes the file starts name through TEMPORAL_NAMESPACE; outside a jest run
 * with shared servers, a server of the file's own.
 */
function useFileDevEnvironment(stopFirst?: () => Promise<void>, options: DevServerOptions = {}): ServerFixture {
  const address = sharedDevServerAddress();
  if (!address) {
    if (options.quickerClock !== undefined) throw new Error("a quicker clock needs the shared dev servers of a jest run (a namespace of the file's own)");
    return useEnvironment(startDevEnvironment, stopFirst);
  }
  const label = fileLabel();
  return useEnvironment(
    async () => {
      const env = await attachDevEnvironment(address, label, options);
      process.env.TEMPORAL_NAMESPACE = env.namespace;
      return env;
    },
    stopFirst,
    async (env) => {
      // Nothing of this file runs on in the shared server once its workers have stopped.
      await endOpenWorkflows(env);
      delete process.env.TEMPORAL_NAMESPACE;
    },
  );
}

export interface DevServerOptions {
  /**
   * Every run in the file's namespace on a clock this many times quicker than the shipped one (timers,
   * retry intervals, heartbeat timeouts), where the test bundle's workers run it: test/helpers/scaled-clock.ts.
   */
  quickerClock?: number;
}

/** A real dev server for this file (its jest worker's shared one, in a namespace of the file's own). */
export function useDevServer(options: DevServerOptions = {}): ServerFixture {
  return useFileDevEnvironment(undefined, options);
}

/** A test's own namespace on its file's dev server: see `useDevServerRooms`. */
export interface Room {
  env: TestWorkflowEnvironment;
  address: string;
  /** For the processes the test starts (TEMPORAL_NAMESPACE, `--namespace`): the file's tests share no process variable. */
  namespace: string;
}

/**
 * A dev server (its jest worker's shared one, else the file's own) whose tests each take a namespace of their
 * own inside the test (`await room()`), so the file's tests can run at once (`test.concurrent`): the tests that
 * kill a worker spend most of their time waiting for the server to notice (a heartbeat timeout, a relaunch rule),
 * and in a namespace each, one test's workers never take another's tasks, nor does one's kill touch another's run.
 * Each room's workers are stopped, its open workflows ended and its connection closed after the file; a test of
 * its own closes what it started itself (jest runs a concurrent test's afterEach hooks when its result is read,
 * not when it ends).
 */
export function useDevServerRooms(options: DevServerOptions = {}): { room(): Promise<Room> } {
  const shared = sharedDevServerAddress();
  const label = fileLabel();
  let own: TestWorkflowEnvironment | undefined;
  const rooms: TestWorkflowEnvironment[] = [];
  if (!shared)
    beforeAll(async () => {
      own = await startDevEnvironment();
    });
  afterAll(async () => {
    for (const env of rooms.splice(0)) {
      await stopTestWorkers(env);
      await endOpenWorkflows(env);
      await env.teardown();
    }
    await own?.teardown();
  });
  return {
    async room() {
      const address = shared ?? own?.connection.options.address;
      if (!address) throw new Error('the dev server is not started: take a room inside a test');
      const env = await attachDevEnvironment(address, label, options);
      rooms.push(env);
      return { env, address, namespace: env.namespace ?? 'default' };
    },
  };
}

/**
 * The time-skipping test server, a fresh one for each test (started in beforeEach, stopped in afterEach),
 * for tests whose subject is a timer or a retry interval. That server holds time still for every task
 * outstanding — a workflow task not yet completed, an activity not yet started — and lets go only when a
 * worker takes the task: not when the workflow is terminated, nor when the worker that would take it has
 * stopped. A task left by one test (a quota gate's idle timer firing as a run's result came back, its
 * check scheduled as the test's worker stopped) kept time from skipping for every later test of a file
 * sharing the server, whose relaunch waits then ran on the wall clock. A server per test (under a second
 * to start) leaves no test anything of another's. See docs/testing.md.
 */
export function useTimeSkippingServer(): ServerFixture {
  let env: TestWorkflowEnvironment | undefined;
  beforeEach(async () => {
    env = await startTimeSkippingEnvironment();
  });
  afterEach(async () => {
    const ending = env;
    env = undefined;
    if (!ending) return;
    await stopTestWorkers(ending);
    await ending.teardown();
  });
  const current = () => {
    if (!env) throw new Error('the time-skipping environment is not started: read it inside a test or a beforeEach/afterEach hook');
    return env;
  };
  return { env: current, address: () => current().connection.options.address };
}

/**
 * A dev server (as useDevServer's) and the real `commonplace worker` (bin/commonplace.js, so `npm run build` first) polling it,
 * with its own state directory; the worker is stopped with SIGINT, as an operator stops it, before the server goes.
 * With `quickerClock`, the worker process is the one `commonplace worker` builds on the test bundle instead
 * (test/helpers/fault-worker.ts, holding the same list), whose scaled clock the file's namespace asks for.
 */
export function useDevServerWithCliWorker(options: DevServerOptions = {}): ServerFixture {
  let worker: ReturnType<typeof startCli> | ReturnType<typeof startFaultWorker> | undefined;
  const server = useFileDevEnvironment(async () => {
    delete process.env.COMMONPLACE_KB_LIST;
    worker?.kill('SIGINT');
    await worker;
  }, options);
  let state = '';
  beforeAll(async () => {
    // The worker holds every checkout this file's tests create (test/helpers/kb.ts announces each in the list).
    state = await scratch();
    const list = join(state, 'checkouts.txt');
    await writeFile(list, '');
    process.env.COMMONPLACE_KB_LIST = list;
    worker =
      options.quickerClock === undefined
        ? // A cancellation reaches its launches within a second (the SDK holds heartbeats back up to 12 s); workflow
          // code on the main thread, as in the tests' in-process workers (a thread's start is half a CPU second).
          startCli(['worker', '--state', state, '--kb-list', list, '--heartbeat-throttle', '1', '--workflow-threads', '0'], {
            env: { TEMPORAL_ADDRESS: server.address(), TEMPORAL_NAMESPACE: server.env().namespace ?? 'default' },
          })
        : // Never killed: a cancellation reaches its launches within a second (the SDK holds heartbeats back up to 80 % of the timeout).
          startFaultWorker(undefined, {
            address: server.address(),
            namespace: server.env().namespace ?? 'default',
            state,
            kbList: list,
            heartbeatThrottle: '1s',
          });
  });
  return { ...server, workerState: () => state };
}
