/** Every start's pre-flight, once a namespace: the search attributes are there, and for an answer a worker polls its queue. */
import type { Client } from '@temporalio/client';
import { searchAttributeKeys, TASK_QUEUE } from '../../search-attributes.js';
import { connectionSettings, type ConnectionSettings } from './connection.js';
import { runnable, shellWord, temporalBinary } from './command-line.js';
import { UserError } from './errors.js';

/** Temporal's enum values (TaskQueueKind NORMAL; TaskQueueType WORKFLOW, ACTIVITY), without loading the protos' module for three numbers. */
const TASK_QUEUE_KIND_NORMAL = 1;
export const TASK_QUEUE_TYPE = { workflow: 1, activity: 2 } as const;

/** A poller seen within this long still polls: an idle worker's long poll is answered empty at most every 70 s and polls again at once. */
const POLLER_FRESH_MS = 90_000;

interface OperatorService {
  listSearchAttributes(request: { namespace: string }): Promise<{ customAttributes?: Record<string, unknown> | null }>;
}

/** The search attributes the namespace lacks, or undefined when the server does not say (then the start is the check). */
export async function missingSearchAttributes(operator: OperatorService, namespace: string): Promise<string[] | undefined> {
  const listed = await operator.listSearchAttributes({ namespace }).catch(() => undefined);
  if (listed === undefined) return undefined;
  const present = new Set(Object.keys(listed.customAttributes ?? {}));
  return searchAttributeKeys.map((key) => key.name).filter((name) => !present.has(name));
}

/** What a namespace without the attributes is, in the words of a command refused there; its one `temporal` command registers them, as printed from any directory. */
export async function missingAttributesMessage(missing: string[], settings: Pick<ConnectionSettings, 'address' | 'namespace'>): Promise<string> {
  const names = missing.map((name) => `--name ${name} --type Keyword`).join(' ');
  const command = `${await temporalBinary()} operator search-attribute create --address ${shellWord(settings.address)} --namespace ${shellWord(settings.namespace)} ${names}`;
  return `namespace "${settings.namespace}" on ${settings.address} lacks the search attribute${missing.length > 1 ? 's' : ''} ${missing.join(', ')} that runs record; register ${missing.length > 1 ? 'them' : 'it'} with \`${command}\``;
}

const checked = new Map<string, Promise<void>>();

/** Refuses work on a namespace without the project's search attributes, asking the server once per namespace and command. */
export async function requireSearchAttributes(
  client: Client,
  settings: Pick<ConnectionSettings, 'address' | 'namespace'> = connectionSettings(),
): Promise<void> {
  const key = `${settings.address}/${settings.namespace}`;
  const check =
    checked.get(key) ??
    missingSearchAttributes(client.connection.operatorService, settings.namespace).then(async (missing) => {
      if (missing !== undefined && missing.length > 0) throw new UserError(`${await missingAttributesMessage(missing, settings)}; nothing was started`);
    });
  checked.set(key, check);
  await check;
}

/** Whether a worker polls `queue` for tasks of `type` now (a poller seen recently), or undefined when the server does not say. */
export async function queuePolled(client: Client, queue: string, type: number): Promise<boolean | undefined> {
  const described = await client.workflowService
    .describeTaskQueue({ namespace: client.options.namespace, taskQueue: { name: queue, kind: TASK_QUEUE_KIND_NORMAL }, taskQueueType: type })
    .catch(() => undefined);
  if (described === undefined) return undefined;
  const now = Date.now();
  return (described.pollers ?? []).some((poller) => {
    const seconds = poller.lastAccessTime?.seconds;
    return seconds === undefined || seconds === null || now - Number(seconds) * 1000 < POLLER_FRESH_MS;
  });
}

/** Refuses an answer no worker would apply: the server would hold it half a minute and fail it, leaving the operator unsure. */
export async function requireWorkflowWorker(client: Client, what: string, kb?: string): Promise<void> {
  if ((await queuePolled(client, TASK_QUEUE, TASK_QUEUE_TYPE.workflow)) !== false) return;
  const settings = connectionSettings();
  throw new UserError(
    `${what} was NOT sent: no worker polls task queue ${TASK_QUEUE} on namespace "${settings.namespace}" at ${settings.address}; start one (\`${runnable('commonplace worker', kb)}\`) and run this command again`,
  );
}
