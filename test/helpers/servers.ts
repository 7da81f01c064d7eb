// One Temporal environment per test file, started in beforeAll and torn down in afterAll.
// Call a fixture at the top level of a test file; it returns getters, read inside tests and hooks.
import { afterAll, beforeAll } from '@jest/globals';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startCli } from './cli.js';
import { scratch } from './fake.js';
import { endOpenWorkflows, startDevEnvironment, startTimeSkippingEnvironment, stopTestWorkers } from './temporal.js';

export interface ServerFixture {
  /** The state directory of the file's CLI worker (`useDevServerWithCliWorker` only): where `<state>/…` paths of its launches are. */
  workerState?(): string;
  /** The file's environment (valid once beforeAll has run). */
  env(): TestWorkflowEnvironment;
  /** The server's address, as TEMPORAL_ADDRESS for CLI processes. */
  address(): string;
}

function useEnvironment(start: () => Promise<TestWorkflowEnvironment>, stopFirst?: () => Promise<void>): ServerFixture {
  let env: TestWorkflowEnvironment | undefined;
  beforeAll(async () => {
    env = await start();
  });
  afterAll(async () => {
    await stopFirst?.();
    if (env) await stopTestWorkers(env);
    await env?.teardown();
  });
  const current = () => {
    if (!env) throw new Error('the Temporal environment is not started: read it inside a test or a hook');
    return env;
  };
  return { env: current, address: () => current().connection.options.address };
}

/** A real dev server for this file. */
export function useDevServer(): ServerFixture {
  return useEnvironment(startDevEnvironment);
}

/** The time-skipping test server for this file, for tests whose subject is a timer or a retry interval. */
export function useTimeSkippingServer(): ServerFixture {
  const fixture = useEnvironment(startTimeSkippingEnvironment);
  // No workflow outlives its test here: see endOpenWorkflows.
  afterEach(async () => endOpenWorkflows(fixture.env()));
  return fixture;
}

/**
 * A dev server and the real `commonplace worker` (bin/commonplace.js, so `npm run build` first) polling it,
 * with its own state directory; the worker is stopped with SIGINT, as an operator stops it, before the server goes.
 */
export function useDevServerWithCliWorker(): ServerFixture {
  let worker: ReturnType<typeof startCli> | undefined;
  const server = useEnvironment(startDevEnvironment, async () => {
    delete process.env.COMMONPLACE_KB_LIST;
    worker?.kill('SIGINT');
    await worker;
  });
  let state = '';
  beforeAll(async () => {
    // The worker holds every checkout this file's tests create (test/helpers/kb.ts announces each in the list).
    state = await scratch();
    const list = join(state, 'checkouts.txt');
    await writeFile(list, '');
    process.env.COMMONPLACE_KB_LIST = list;
    worker = startCli(['worker', '--state', state, '--kb-list', list], { env: { TEMPORAL_ADDRESS: server.address() } });
  });
  return { ...server, workerState: () => state };
}
