/**
 * The crash tests' faults, handed to a worker through its `faults` option (src/worker.ts): at a named
 * point inside an activity (src/activities/faults.ts), or when an activity of a type has returned and
 * its result is not yet reported (an activity interceptor). `kill` ends the worker process outright,
 * as kill -9 would: no finally block runs and nothing is reported. `lose` fails the activity's first
 * attempt there, as a report the server never got would; its retry goes on.
 */
import { Context } from '@temporalio/activity';
import type { ActivityInboundCallsInterceptor } from '@temporalio/worker';
import { execa } from 'execa';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { FaultPoint, FaultPoints } from '../../src/activities/faults.js';
import { packageRoot } from '../../src/paths.js';
import type { WorkerFaults } from '../../src/worker.js';

export interface Fault {
  do: 'kill' | 'lose';
  /** A named point inside an activity, or `after <activity type>`. */
  at: FaultPoint | `after ${string}`;
  /** Only where the point carries this detail (a publication journal's event). */
  detail?: string;
  /** Only the nth time the point is reached with it in this process (the first by default). */
  nth?: number;
}

function strike(fault: Fault, where: string, attempt: number): void {
  if (fault.do === 'kill') process.kill(process.pid, 'SIGKILL');
  else if (attempt === 1) throw new Error(`fault: the report of attempt 1 lost ${where}`);
}

/** The worker option that makes `fault` happen. */
export function workerFaults(fault: Fault): WorkerFaults {
  let reached = 0;
  const due = () => (reached += 1) === (fault.nth ?? 1);
  if (fault.at.startsWith('after ')) {
    const activityType = fault.at.slice('after '.length);
    const inbound = (attempt: number, type: string): ActivityInboundCallsInterceptor => ({
      async execute(input, next) {
        const result = await next(input);
        if (type === activityType && due()) strike(fault, `after ${type} returned`, attempt);
        return result;
      },
    });
    return { interceptors: [(context) => ({ inbound: inbound(context.info.attempt, context.info.activityType) })] };
  }
  const points: FaultPoints = {
    at(point, detail) {
      if (point !== fault.at || (fault.detail !== undefined && detail !== fault.detail) || !due()) return;
      strike(fault, `at ${point}`, Context.current().info.attempt);
    },
  };
  return { points };
}

/** A fault as a worker process's argument (test/helpers/fault-worker.ts), and back. */
export const faultArgument = (fault: Fault): string => JSON.stringify(fault);
export const faultFromArgument = (text: string): Fault => JSON.parse(text) as Fault;

/**
 * The fault worker as a process's arguments: test/helpers/fault-worker.ts as the test run's global setup
 * bundled it (one module, its packages imported from node_modules), beside the workflow bundle.
 */
export function faultWorkerArgs(): string[] {
  const bundled = join(packageRoot(), '.commonplace', 'test', 'fault-worker.mjs');
  if (!existsSync(bundled)) throw new Error(`${bundled} is missing: the test run's global setup (test/helpers/global-setup.js) bundles it`);
  return [bundled];
}

/**
 * Starts a worker process (test/helpers/fault-worker.ts, bundled: faultWorkerArgs) that carries `fault` (none when
 * `undefined`: a worker the test kills from outside), serving the task queues a
 * `commonplace worker --state <state> [--kb <dir>]...` would, on the test run's workflow bundle.
 */
export function startFaultWorker(
  fault: Fault | undefined,
  options: {
    address: string;
    namespace?: string;
    state: string;
    kb?: string[];
    kbList?: string;
    metrics?: string;
    heartbeatThrottle?: string;
    env?: Record<string, string>;
  },
) {
  const root = packageRoot();
  // The file's namespace on its shared dev server (the fixture sets TEMPORAL_NAMESPACE for the processes it starts).
  const namespace = options.namespace ?? process.env.TEMPORAL_NAMESPACE;
  const args = [
    '--address',
    options.address,
    ...(namespace ? ['--namespace', namespace] : []),
    '--state',
    options.state,
    ...(options.kb ?? []).flatMap((dir) => ['--kb', dir]),
    ...(options.kbList !== undefined ? ['--kb-list', options.kbList] : []),
    ...(options.metrics !== undefined ? ['--metrics', options.metrics] : []),
    ...(options.heartbeatThrottle !== undefined ? ['--heartbeat-throttle', options.heartbeatThrottle] : []),
    ...(fault === undefined ? [] : ['--fault', faultArgument(fault)]),
  ];
  return execa('node', [...faultWorkerArgs(), ...args], {
    cwd: root,
    reject: false,
    ...(options.env && { env: options.env }),
  });
}
