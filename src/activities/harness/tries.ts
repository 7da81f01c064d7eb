/**
 * A harness try as a process that outlives its activity attempt (an `sh` wrapper in its own group, recorded in
 * `.launch/current.json`): the next attempt adopts a running or unreported try instead of paying for it again.
 */
import { execa, type ResultPromise } from 'execa';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../../fs/atomic.js';
import type { CommandLine } from '../../harness/command.js';
import { noFaults, type FaultPoints } from '../faults.js';

export const launchStateDir = '.launch';

/** The try a launch directory runs or last ran: kept after a report (a lost report is made again), cleared when the try failed. */
export interface TryRecord {
  /** The wrapper's pid, which is also its process group's. */
  pid: number;
  try: number;
  /** The try's log directory, relative to the launch directory. */
  logDir: string;
  /** Epoch ms the try started: its timeout runs from here, whichever attempt watches it. */
  startedAt: number;
  command: string[];
  /** The activity that started it (workflow, run, activity ID): only that activity's later attempts adopt it. */
  owner: string;
  /** The workflow execution the try works for: a try whose run has closed is ended (src/activities/harness/reap.ts). */
  workflow?: { namespace: string; workflowId: string; runId: string };
}

const recordFile = (dir: string) => join(dir, launchStateDir, 'current.json');
export const tryFiles = (dir: string, logDir: string) => ({
  stdout: join(dir, logDir, 'stdout.txt'),
  stderr: join(dir, logDir, 'stderr.txt'),
  exit: join(dir, logDir, 'exit-code'),
});

// $1..$3: the stdout, stderr and exit-code files; the rest is the harness's argv. The wrapper starts
// the harness only after the line `go` on its standard input, which the launch sends once the try is
// recorded: a worker killed before that closes the pipe, and the wrapper exits without starting it
// (and without an exit code: the try is `gone`, and launched again). The harness reads the rest of
// standard input, the prompt. The exit code is written by rename, so a reader sees it whole or not at
// all; a killed group writes none.
const WRAPPER =
  'out=$1; err=$2; status=$3; shift 3; IFS= read -r go && [ "$go" = go ] || exit 75; "$@" >"$out" 2>"$err"; code=$?; printf "%s\\n" "$code" >"$status.tmp" && mv "$status.tmp" "$status"';

/** Signals a try's process group; whether the group is there (signal 0 only asks). */
function signalGroup(pid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export const killGroup = (pid: number, signal: NodeJS.Signals): void => void signalGroup(pid, signal);

export async function readTryRecord(dir: string): Promise<TryRecord | undefined> {
  try {
    const record = JSON.parse(await readFile(recordFile(dir), 'utf8')) as TryRecord;
    return Number.isInteger(record.pid) && record.pid > 1 ? record : undefined;
  } catch {
    return undefined;
  }
}

/** The try failed and is reported so (or was killed): the next attempt starts a try of its own. */
export async function clearTryRecord(dir: string): Promise<void> {
  await rm(recordFile(dir), { force: true });
}

/** What became of a recorded try: still running, ended with an exit code nobody reported, or gone without one (killed). */
export async function tryState(dir: string, record: TryRecord): Promise<'running' | 'ended' | 'gone'> {
  if ((await readExitCode(dir, record)) !== undefined) return 'ended';
  return signalGroup(record.pid, 0) ? 'running' : 'gone';
}

export async function readExitCode(dir: string, record: Pick<TryRecord, 'logDir'>): Promise<number | undefined> {
  const text = await readFile(tryFiles(dir, record.logDir).exit, 'utf8').catch(() => '');
  const code = Number.parseInt(text.trim(), 10);
  return Number.isInteger(code) ? code : undefined;
}

/** Starts a try: records it, then lets the wrapper start the harness, so no harness runs unrecorded. */
export async function startTry(
  dir: string,
  owner: string,
  tryNumber: number,
  logDir: string,
  command: CommandLine,
  prompt: string,
  env: Record<string, string>,
  recorded: { workflow?: TryRecord['workflow']; register?: (record: TryRecord) => Promise<void>; faults?: FaultPoints } = {},
): Promise<{ record: TryRecord; process: ResultPromise }> {
  const files = tryFiles(dir, logDir);
  await mkdir(join(dir, logDir), { recursive: true });
  await rm(files.exit, { force: true });
  const child = execa('/bin/sh', ['-c', WRAPPER, 'sh', files.stdout, files.stderr, files.exit, command.file, ...command.args], {
    cwd: dir,
    stdin: 'pipe',
    env,
    detached: true,
    reject: false,
  });
  child.stdin?.on('error', () => undefined); // the wrapper is gone: its exit says so
  const record: TryRecord = {
    pid: child.pid ?? 0,
    try: tryNumber,
    logDir,
    startedAt: Date.now(),
    command: [command.file, ...command.args],
    owner,
    ...(recorded.workflow && { workflow: recorded.workflow }),
  };
  if (child.pid !== undefined) {
    try {
      await (recorded.faults ?? noFaults).at('try-spawned');
      await writeFileAtomic(recordFile(dir), `${JSON.stringify(record)}\n`, { fsync: false });
      await recorded.register?.(record);
    } catch (error) {
      child.stdin?.end(); // no `go`: the wrapper exits without starting the harness
      throw error;
    }
  }
  child.stdin?.end(`go\n${prompt}`);
  return { record, process: child };
}

/** Waits until a try's process group has ended (a killed one) or its exit code is written, polling. */
export async function tryEnded(dir: string, record: TryRecord, pollMs = 200): Promise<void> {
  while ((await tryState(dir, record)) === 'running') await new Promise((done) => setTimeout(done, pollMs));
}

export async function writeTryLog(dir: string, logDir: string, record: Record<string, unknown>): Promise<void> {
  await writeFile(join(dir, logDir, 'try.json'), `${JSON.stringify(record, null, 2)}\n`);
}
