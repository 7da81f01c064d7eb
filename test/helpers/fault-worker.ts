/**
 * A worker process with one fault, for the tests that kill a worker outright: the worker
 * `commonplace worker` builds (src/worker.ts, on the workflow bundle the test run built, which carries
 * the scaled clock: ./scaled-clock.ts), plus the fault a test names, or none (a worker the test kills
 * from outside). Started by `startFaultWorker` (./faults.ts) from the one module the test run's global setup bundles it
 * into, never by the operator CLI.
 *
 *   fault-worker.ts [--address HOST:PORT] [--namespace NS] --state DIR [--kb DIR]... [--kb-list FILE] [--max-launches N] [--metrics PORT|HOST:PORT] [--heartbeat-throttle DURATION] [--fault JSON]
 *
 * The address and namespace default to TEMPORAL_ADDRESS and TEMPORAL_NAMESPACE, as the CLI's do; its ready
 * line says what it serves in the CLI's words. `--metrics` installs the runtime as `commonplace worker --metrics` does,
 * and says its endpoint in the same line.
 */
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import type { Duration } from '@temporalio/common';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { metricsOption, metricsUrl } from '../../src/client/operate/metrics-option.js';
import { holdListed, serving } from '../../src/client/operate/worker-start.js';
import { parseOptions } from '../../src/client/shared/options.js';
import { installQuietRuntime } from '../../src/client/shared/runtime.js';
import { checkoutsAt, createWorker } from '../../src/worker.js';
import { faultFromArgument, workerFaults } from './faults.js';
import { testWorkflowCode } from './temporal.js';

const { values } = parseArgs({
  options: {
    address: { type: 'string', default: process.env.TEMPORAL_ADDRESS },
    namespace: { type: 'string', default: process.env.TEMPORAL_NAMESPACE ?? 'default' },
    state: { type: 'string' },
    kb: { type: 'string', multiple: true, default: [] },
    'kb-list': { type: 'string' },
    fault: { type: 'string' },
    'max-launches': { type: 'string' },
    metrics: { type: 'string' },
    'heartbeat-throttle': { type: 'string' },
  },
});
if (values.address === undefined || values.state === undefined) throw new Error('fault-worker: --address and --state are required');

if (values.metrics === undefined) Runtime.install({ logger: new DefaultLogger('WARN') });
else {
  const metrics = parseOptions(metricsOption, values.metrics)!;
  installQuietRuntime({ metrics });
  process.stderr.write(`metrics for Prometheus: ${metricsUrl(metrics)}\n`);
}
const connection = await NativeConnection.connect({ address: values.address });
const worker = await createWorker({
  connection,
  namespace: values.namespace,
  stateDir: resolve(values.state),
  checkouts: await checkoutsAt(values.kb),
  workflowCode: testWorkflowCode(),
  ...(values.fault !== undefined && { faults: workerFaults(faultFromArgument(values.fault)) }),
  ...(values['max-launches'] !== undefined && { maxConcurrentActivityTaskExecutions: Number(values['max-launches']) }),
  // A test kills this worker: the next worker takes the runs it ran a second later, not the SDK's 10 s.
  stickyQueueScheduleToStartTimeout: '1s',
  // Workflow code on the main thread, as in the tests' in-process workers: a thread's start is half a CPU second.
  workflowThreads: 0,
  // A worker no test kills (a file's shared worker) takes cancellations within this; a killed one keeps the SDK's throttle.
  ...(values['heartbeat-throttle'] !== undefined && { heartbeatThrottle: values['heartbeat-throttle'] as Duration }),
});
process.stderr.write(
  `worker ready on ${values.address} (namespace ${values.namespace}; ${serving(worker, values['kb-list'])})${values.fault === undefined ? '' : ` with the fault ${values.fault}`}\n`,
);
// The checkouts a file's tests announce, held as they are added, as `commonplace worker --kb-list` holds them.
const unwatch = values['kb-list'] !== undefined ? holdListed(worker, resolve(values['kb-list'])) : () => undefined;
await worker.run();
unwatch();
await connection.close();
