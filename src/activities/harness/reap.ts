/** No orphaned tries: each try is listed under `<state>/tries/<pid>.json`, and a starting worker ends those whose runs have closed. */
import type { Client } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../../fs/atomic.js';
import { killGroup, tryFiles, tryState, type TryRecord } from './tries.js';

/** A listed try: its record and the launch directory it runs in. */
export interface ListedTry extends TryRecord {
  dir: string;
}

/** What the server says of a try's workflow execution. */
export type RunState = 'open' | 'closed' | 'unknown';

export const triesIndexDir = (stateDir: string) => join(stateDir, 'tries');

export async function listTry(stateDir: string, dir: string, record: TryRecord): Promise<void> {
  const listed: ListedTry = { ...record, dir };
  await writeFileAtomic(join(triesIndexDir(stateDir), `${record.pid}.json`), `${JSON.stringify(listed)}\n`, { fsync: false });
}

export async function unlistTry(stateDir: string, pid: number): Promise<void> {
  await rm(join(triesIndexDir(stateDir), `${pid}.json`), { force: true });
}

/** Whether the pid still runs this try's wrapper (its command line names the try's stdout file), not a process that reused the pid. */
async function stillTheWrapper(listed: ListedTry): Promise<boolean> {
  const cmdline = await readFile(`/proc/${listed.pid}/cmdline`, 'utf8').catch(() => undefined);
  return cmdline === undefined ? true : cmdline.split('\0').includes(tryFiles(listed.dir, listed.logDir).stdout);
}

/** Ends listed tries whose execution closed (SIGTERM, SIGKILL after the grace), unlists ended ones; returns those it ended. */
export async function reapClosedTries(
  stateDir: string,
  runState: (workflow: NonNullable<TryRecord['workflow']>) => Promise<RunState>,
  killGraceMs = 2000,
): Promise<ListedTry[]> {
  const index = triesIndexDir(stateDir);
  const names = await readdir(index).catch(() => [] as string[]);
  const reaped: ListedTry[] = [];
  for (const name of names.filter((entry) => entry.endsWith('.json'))) {
    const listed = await readFile(join(index, name), 'utf8')
      .then((text) => JSON.parse(text) as ListedTry)
      .catch(() => undefined);
    const valid = !!listed && Number.isInteger(listed.pid) && listed.pid > 1;
    if (!valid || (await tryState(listed.dir, listed)) !== 'running' || !(await stillTheWrapper(listed))) {
      await rm(join(index, name), { force: true });
      continue;
    }
    if (!listed.workflow || (await runState(listed.workflow)) !== 'closed') continue;
    killGroup(listed.pid, 'SIGTERM');
    setTimeout(() => killGroup(listed.pid, 'SIGKILL'), killGraceMs).unref();
    await unlistTry(stateDir, listed.pid);
    reaped.push(listed);
  }
  return reaped;
}

/** Asks the server whether a try's workflow execution has closed; a run it no longer knows has closed. */
export function runStateOn(client: Client): (workflow: NonNullable<TryRecord['workflow']>) => Promise<RunState> {
  return async ({ namespace, workflowId, runId }) => {
    if (namespace !== client.options.namespace) return 'unknown';
    try {
      const description = await client.workflow.getHandle(workflowId, runId).describe();
      return description.status.name === 'RUNNING' ? 'open' : 'closed';
    } catch (error) {
      return error instanceof WorkflowNotFoundError ? 'closed' : 'unknown';
    }
  };
}
