// Two hosts on one machine: a checkout under a directory a second worker cannot see (its own mount
// namespace hides the directory under an empty tmpfs), the workers' stderr read as they say their states,
// and the histories of a sweep read back for which worker ran what.
import type { Client } from '@temporalio/client';
import { historyToJSON, type History } from '@temporalio/common/lib/proto-utils.js';
import { execa, type ResultPromise } from 'execa';
import { cp, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { packageRoot } from '../../src/paths.js';
import { killGroup, readTryRecord, tryState, type TryRecord } from '../../src/activities/harness/tries.js';
import { scratch, waitFor } from './fake.js';
import { faultWorkerArgs } from './faults.js';
import { corpusRoot } from './kb.js';

/** A writable copy of the corpus at `<host>/kb`, so hiding `host` hides the whole checkout. */
export async function checkoutUnder(host: string): Promise<string> {
  const checkout = join(host, 'kb');
  await cp(join(corpusRoot, 'kb'), join(checkout, 'kb'), { recursive: true });
  return checkout;
}

/** A process (watched from its start: `watchedProcess`) and everything it has written to stderr so far. */
export interface WorkerProcess {
  process: ResultPromise;
  pid: number;
  stderr(): string;
  /** Whether the process has ended. */
  ended(): boolean;
  /** Waits until a stderr line matches, failing with what the worker said if it ends first or the deadline passes. */
  said(pattern: RegExp, timeoutMs?: number): Promise<void>;
}

/** A worker process watched from its start: `said` waits for a line of its stderr. */
export const watchedWorker = (child: ResultPromise) => watchedProcess(child, 'the worker');

/** A process watched from its start (a worker, or the CLI following a run): `said` waits for a line of its stderr. */
export function watchedProcess(child: ResultPromise, who: string): WorkerProcess {
  let text = '';
  let ended = false;
  child.stderr?.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
  });
  child
    .finally(() => {
      ended = true;
    })
    .catch(() => undefined);
  return {
    process: child,
    pid: child.pid ?? 0,
    stderr: () => text,
    ended: () => ended,
    said: async (pattern, timeoutMs = 120_000) => {
      await waitFor(
        `${who} to say ${pattern}`,
        async () => {
          if (pattern.test(text)) return true;
          if (ended) throw new Error(`${who} ended before saying ${pattern}; its stderr:\n${text}`);
          return false;
        },
        timeoutMs,
      ).catch((error: Error) => {
        throw new Error(`${error.message}; its stderr so far:\n${text}`);
      });
    },
  };
}

/** Environment a worker process is started with: the server, and no checkouts named by the environment. */
function workerEnv(address: string, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !/^COMMONPLACE_(KB|KB_LIST|STATE_DIR)$/.test(name)) env[name] = value;
  }
  return { ...env, TEMPORAL_ADDRESS: address, ...extra };
}

/**
 * The worker `commonplace worker` builds (src/worker.ts, with its task queues and `--max-launches`), on the
 * test run's workflow bundle (test/helpers/fault-worker.ts, bundled: faultWorkerArgs): a file on the scaled clock
 * (`useDevServer({ quickerClock })`) has a dead host's heartbeat timeout and the retry after it pass quickly.
 */
const worker = (): string[] => faultWorkerArgs();

/** A worker holding the checkouts named, with its own state directory (in the namespace named, else the file's). */
export function startCheckoutWorker(address: string, options: { kb: string[]; state: string; maxLaunches?: number; namespace?: string }): WorkerProcess {
  const args = [
    ...options.kb.flatMap((dir) => ['--kb', dir]),
    '--state',
    options.state,
    ...(options.maxLaunches !== undefined ? ['--max-launches', String(options.maxLaunches)] : []),
  ];
  const extra: Record<string, string> = options.namespace !== undefined ? { TEMPORAL_NAMESPACE: options.namespace } : {};
  return watchedWorker(execa('node', [...worker(), ...args], { cwd: packageRoot(), env: workerEnv(address, extra), extendEnv: false, reject: false }));
}

// Run in a mount namespace of its own: an empty tmpfs over $HIDE, a check that the checkout is gone, then the worker.
const hiddenWorker = (): string =>
  `mount -t tmpfs none "$HIDE" && test ! -e "$CHECKOUT" && test ! -e "$CHECKOUT/kb" && echo "checkout hidden" >&2 && exec node ${worker()
    .map((arg) => `'${arg}'`)
    .join(' ')} --state "$STATE" --max-launches "$MAX_LAUNCHES"`;

/**
 * A worker with no checkout, in its own mount namespace where `hide` is an empty directory (so `checkout`,
 * under it, cannot be read), in its own process group (so a test can kill it as a host dies).
 */
export function startHiddenLaunchWorker(address: string, options: { hide: string; checkout: string; state: string; maxLaunches?: number }): WorkerProcess {
  const child = execa('unshare', ['-m', 'sh', '-c', hiddenWorker()], {
    cwd: packageRoot(),
    env: workerEnv(address, { HIDE: options.hide, CHECKOUT: options.checkout, STATE: options.state, MAX_LAUNCHES: String(options.maxLaunches ?? 8) }),
    extendEnv: false,
    detached: true,
    reject: false,
  });
  return watchedWorker(child);
}

/** The harness tries a worker's state directory records as running (`.launch/current.json` of a launch directory, its group alive and no exit code written). */
export async function runningTries(state: string): Promise<TryRecord[]> {
  const entries = await readdir(state, { recursive: true }).catch(() => [] as string[]);
  const dirs = entries.filter((entry) => entry.endsWith(join('.launch', 'current.json'))).map((entry) => join(state, entry, '..', '..'));
  const running: TryRecord[] = [];
  for (const dir of dirs) {
    const record = await readTryRecord(dir);
    if (record !== undefined && (await tryState(dir, record)) === 'running') running.push(record);
  }
  return running;
}

/**
 * Kills a worker as a host dies: SIGKILL to its process group, then to the group of each harness try it
 * was running (each try runs in a group of its own, to outlive a worker's restart). Returns how many tries it killed.
 */
export async function killHost(worker: WorkerProcess, state: string): Promise<number> {
  killGroup(worker.pid, 'SIGKILL');
  await worker.process;
  const tries = await runningTries(state);
  for (const entry of tries) killGroup(entry.pid, 'SIGKILL');
  return tries.length;
}

/** One workflow execution's history, in the JSON form the Temporal CLI prints (payloads base64). */
export interface RecordedHistory {
  workflowId: string;
  runId: string;
  history: History;
  json: string;
}

/** The histories of every execution whose workflow ID starts with `prefix` (every run of each, continued-as-new ones too), or of every execution. */
export async function historiesOf(client: Client, prefix?: string): Promise<RecordedHistory[]> {
  const found: RecordedHistory[] = [];
  for await (const execution of client.workflow.list(prefix === undefined ? {} : { query: `WorkflowId STARTS_WITH "${prefix}"` })) {
    const history = await client.workflow.getHandle(execution.workflowId, execution.runId).fetchHistory();
    found.push({ workflowId: execution.workflowId, runId: execution.runId, history, json: historyToJSON(history) });
  }
  return found;
}

/** An activity as a history shows it: its type, its task queue, the worker that ran its last attempt, and that attempt. */
export interface RanActivity {
  workflowId: string;
  type: string;
  taskQueue: string;
  identity: string;
  attempt: number;
  /** The last failed attempt's failure, when the last attempt was not the first (a heartbeat timeout, for one). */
  lastFailure: string | undefined;
  /** The activity's input, decoded (JSON payloads). */
  input: unknown[];
}

const decode = (data: Uint8Array | null | undefined): unknown => (data ? JSON.parse(Buffer.from(data).toString('utf8')) : undefined);

/** Each activity a history started: paired scheduled and started events. */
export function activitiesIn(recorded: RecordedHistory): RanActivity[] {
  const events = recorded.history.events ?? [];
  const scheduled = new Map(
    events.filter((event) => event.activityTaskScheduledEventAttributes).map((event) => [String(event.eventId), event.activityTaskScheduledEventAttributes!]),
  );
  return events.flatMap((event) => {
    const started = event.activityTaskStartedEventAttributes;
    if (!started) return [];
    const task = scheduled.get(String(started.scheduledEventId));
    const failure = started.lastFailure;
    return [
      {
        workflowId: recorded.workflowId,
        type: task?.activityType?.name ?? '',
        taskQueue: task?.taskQueue?.name ?? '',
        identity: started.identity ?? '',
        attempt: started.attempt ?? 1,
        lastFailure: failure
          ? `${failure.message ?? ''} ${failure.timeoutFailureInfo ? `(timeout ${String(failure.timeoutFailureInfo.timeoutType)})` : ''}`.trim()
          : undefined,
        input: (task?.input?.payloads ?? []).map((payload) => decode(payload.data)),
      },
    ];
  });
}

/** A fresh state directory for one worker. */
export const stateDir = (): Promise<string> => scratch('commonplace-state-');
