/**
 * Whether a test's fake-harness processes are gone: the harness of each try its ledger records, and
 * the child a `hang` attempt spawned. A cancelled or closed run must leave none (issue 26, item 10).
 */
import { readFile } from 'node:fs/promises';
import { readLedger, waitFor } from './fake.js';

/** Alive and not a zombie waiting to be reaped. */
async function running(pid: number): Promise<boolean> {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  // `pid (comm) S …`: the state follows the command's closing parenthesis.
  return stat === undefined || stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
}

/** The pids of the fake-harness processes a ledger names that still run. */
export async function harnessesLeft(ledger: string): Promise<number[]> {
  const pids = new Set<number>();
  for (const entry of await readLedger(ledger)) {
    pids.add(entry.pid);
    if (entry.childPid !== undefined) pids.add(entry.childPid);
  }
  const left: number[] = [];
  for (const pid of pids) if (await running(pid)) left.push(pid);
  return left;
}

/** Waits until no fake-harness process of the ledger runs (a killed group ends within its grace); fails naming those left. */
export async function expectNoHarnessLeft(ledger: string, timeoutMs = 30_000): Promise<void> {
  await waitFor('the harness processes to end', async () => (await harnessesLeft(ledger)).length === 0, timeoutMs).catch(async () => {
    throw new Error(`harness processes left running after the run ended: ${(await harnessesLeft(ledger)).join(', ')} (ledger ${ledger})`);
  });
}
