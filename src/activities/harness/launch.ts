import { Context, CancelledFailure } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { ResultPromise } from 'execa';
import { access, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, normalize, relative, sep } from 'node:path';
import { sha256 } from '../../fs/digest.js';
import { launchHeartbeatIntervalMs, type ApiExecutor, type CliExecutor, type Executor, type ExecutorAnswer } from '../../harness/executor.js';
import { executorFor } from '../../harness/executors/index.js';
import { resolveCommand } from '../../harness/installed.js';
import type { HarnessName } from '../../harness/profiles.js';
import { findUsageLimitIn, type HarnessReport } from '../../harness/report.js';
import { parseResetTime } from '../../harness/reset-time.js';
import {
  RETURNED_OUTPUT_CAP,
  type BilledTry,
  type LaunchActivity,
  type LaunchExitDetails,
  type LaunchInput,
  type LaunchResult,
  type OutputDigest,
  type UsageLimitDetails,
} from '../../harness/launch-contract.js';
import { noFaults, type FaultPoints } from '../faults.js';
import { TryFollower } from './follow.js';
import { listTry, runStateOn, unlistTry } from './reap.js';
import { STRAY_WALK_LIMIT, watchStateWrites, type StrayCheck, type StrayWatch } from './state-writes.js';
import { prepareLaunch } from './prepare.js';
import {
  clearTryRecord,
  killGroup,
  launchStateDir,
  readExitCode,
  readTryRecord,
  startTry,
  tryEnded,
  tryFiles,
  tryState,
  writeTryLog,
  type TryRecord,
} from './tries.js';

export interface HarnessDependencies {
  /** The fake harness executable, used by profiles of harness `fake` without their own `command`. */
  fakeHarnessPath: string;
  clock?: () => Date;
  /** The zone a reset time without one is read in; the worker's own by default. */
  timeZone?: string;
  heartbeatIntervalMs?: number;
  /** How long a killed process group gets between SIGTERM and SIGKILL. */
  killGraceMs?: number;
  /** Writes this host's paths as place tokens (src/held-checkouts.ts): heartbeat details reach the history on a timeout. */
  portable?: <T>(value: T) => T;
  /** Where this worker lists the tries it starts (`<state>/tries/`), so a worker that starts ends those whose runs closed. */
  stateDir?: string;
  /** The directories of the checkouts the worker holds and of their run worktrees: the stray-write check does not walk them (`state-writes.ts`). */
  checkoutDirs?: () => string[];
  /** Executors that replace the registered ones by name (tests hand in their own). */
  executors?: Partial<Record<HarnessName, Executor>>;
  /** Where a test makes the worker fail inside an activity (src/activities/faults.ts); none in production. */
  faults?: FaultPoints;
}

/** How long a CLI may say it cannot reach its endpoint before the try is ended, when the profile sets no `unreachable-timeout`. */
export const defaultUnreachableTimeoutMs = 60_000;

const firstLine = (text: string): string => (text.split('\n')[0] ?? '').slice(0, 200);

function checkInput(input: LaunchInput): void {
  const problems: string[] = [];
  if (!isAbsolute(input.dir)) problems.push(`dir "${input.dir}" is not absolute`);
  for (const output of input.outputs) {
    const normal = normalize(output);
    if (isAbsolute(output) || normal.startsWith('..') || normal.split(sep)[0] === launchStateDir) {
      problems.push(`output "${output}" must be a path inside the launch directory`);
    }
  }
  if (problems.length > 0) {
    throw ApplicationFailure.create({ type: 'bad-launch-input', nonRetryable: true, message: `launch ${input.launchId}: ${problems.join('; ')}` });
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}

/** Moves whatever the declared outputs hold to `asideDir`, so a failed or leftover output can never be accepted. */
async function setAside(dir: string, outputs: string[], asideDir: string): Promise<string[]> {
  const moved: string[] = [];
  for (const output of outputs) {
    const from = join(dir, output);
    if (!(await exists(from))) continue;
    const to = join(asideDir, output);
    await mkdir(dirname(to), { recursive: true });
    await rename(from, to);
    moved.push(relative(dir, to));
  }
  return moved;
}

/** Writes a launch's carried files into its directory, each checked to stay inside it. */
async function writeFiles(dir: string, files: Record<string, string>, launchId: string): Promise<void> {
  // Whatever an earlier launch left here besides its tries' logs goes first: the worker sees exactly these files.
  await mkdir(dir, { recursive: true });
  for (const entry of await readdir(dir).catch(() => [] as string[])) {
    if (entry !== launchStateDir) await rm(join(dir, entry), { recursive: true, force: true });
  }
  for (const [name, text] of Object.entries(files)) {
    const normal = normalize(name);
    if (isAbsolute(name) || normal.startsWith('..') || normal.split(sep)[0] === launchStateDir) {
      throw ApplicationFailure.create({
        type: 'bad-launch-input',
        nonRetryable: true,
        message: `launch ${launchId}: file "${name}" must be a path inside the launch directory`,
      });
    }
    await mkdir(dirname(join(dir, normal)), { recursive: true });
    await writeFile(join(dir, normal), text);
  }
}

/** The outputs' bytes for the result, each within the cap; larger ones are named instead. */
async function returned(dir: string, present: OutputDigest[], maxBytes: number): Promise<{ outputBytes: Record<string, string>; oversize: string[] }> {
  const outputBytes: Record<string, string> = {};
  const oversize: string[] = [];
  for (const output of present) {
    if (output.size > Math.min(maxBytes, RETURNED_OUTPUT_CAP)) oversize.push(output.path);
    else outputBytes[output.path] = (await readFile(join(dir, output.path))).toString('base64');
  }
  return { outputBytes, oversize };
}

async function digest(dir: string, outputs: string[]): Promise<{ present: OutputDigest[]; missing: string[] }> {
  const present: OutputDigest[] = [];
  const missing: string[] = [];
  for (const output of outputs) {
    try {
      const bytes = await readFile(join(dir, output));
      present.push({ path: output, sha256: sha256(bytes), size: bytes.length });
    } catch {
      missing.push(output);
    }
  }
  return { present, missing };
}

/** What the launch activity's functions share: the factory's dependencies with their defaults. */
interface LaunchWiring {
  deps: HarnessDependencies;
  clock: () => Date;
  heartbeatIntervalMs: number;
  killGraceMs: number;
  portable: <T>(value: T) => T;
  faults: FaultPoints;
}

/** Builds the launch activity: the only place a harness process is started. */
export function createHarnessActivities(dependencies: HarnessDependencies) {
  const wiring: LaunchWiring = {
    deps: dependencies,
    clock: dependencies.clock ?? (() => new Date()),
    heartbeatIntervalMs: dependencies.heartbeatIntervalMs ?? launchHeartbeatIntervalMs,
    killGraceMs: dependencies.killGraceMs ?? 2000,
    portable: dependencies.portable ?? (<T>(value: T) => value),
    faults: dependencies.faults ?? noFaults,
  };
  /**
   * Runs one harness try in its prepared directory, under the profile's timeout, heartbeating, and
   * reports its outputs by digest. A try an earlier attempt started and never reported (its worker
   * died, or the server timed the attempt out while unreachable) is adopted, not launched again.
   */
  async function launch(input: LaunchInput): Promise<LaunchResult> {
    return runLaunch(wiring, input);
  }
  return { launch };
}

/**
 * Runs one harness try in its prepared directory, under the profile's timeout, heartbeating, and
 * reports its outputs by digest. A try an earlier attempt started and never reported (its worker
 * died, or the server timed the attempt out while unreachable) is adopted, not launched again.
 */
async function runLaunch(w: LaunchWiring, input: LaunchInput): Promise<LaunchResult> {
  checkInput(input);
  const executor = w.deps.executors?.[input.profile.harness] ?? executorFor(input.profile.harness);
  if (executor.kind === 'api') return answer(w, executor, input);
  // Where a try could write outside its launch directory is watched while it runs (see `state-writes.ts`).
  const watch = w.deps.stateDir === undefined ? undefined : await watchStateWrites(w.deps.stateDir, input.dir, w.deps.checkoutDirs?.());
  try {
    return await runTry(w, executor, input, watch);
  } finally {
    watch?.close();
  }
}

/** A CLI launch's try: started, or adopted from an earlier attempt, and reported. */
async function runTry(w: LaunchWiring, executor: CliExecutor, input: LaunchInput, watch: StrayWatch | undefined): Promise<LaunchResult> {
  const context = Context.current();
  const { profile, dir } = input;

  const info = context.info;
  const earlier = billedEarlier(context);
  const owner = `${info.workflowExecution?.workflowId ?? ''}/${info.workflowExecution?.runId ?? ''}/${info.activityId}`;
  let record = await readTryRecord(dir);
  if (record && record.owner !== owner) {
    // Another launch's try in this directory: never adopted, and never left running to write into this one.
    if ((await tryState(dir, record)) === 'running') killGroup(record.pid, 'SIGKILL');
    record = undefined;
  }
  let child: ResultPromise | undefined;
  const adopted = record !== undefined && (await tryState(dir, record)) !== 'gone';
  if (!adopted || !record) {
    await clearTryRecord(dir); // killed with its worker (or none): nothing to adopt
    if (input.files) await writeFiles(dir, { ...input.files, 'prompt.md': input.prompt }, input.launchId);
    const prepared = await prepareLaunch(executor, profile, dir, launchStateDir);
    const command = executor.commandLine(prepared.profile, w.deps.fakeHarnessPath, prepared.files);
    if (resolveCommand(command.file, { ...process.env, ...prepared.env }) === undefined) {
      throw ApplicationFailure.create({
        type: 'harness-missing',
        nonRetryable: true,
        message: `profile ${profile.name}: cannot run "${command.file}" (${profile.harness} CLI not found on PATH)`,
      });
    }
    const logDir = join(launchStateDir, `try-${context.info.attempt}`);
    await mkdir(join(dir, logDir), { recursive: true });
    await setAside(dir, input.outputs, join(dir, logDir, 'leftover'));
    const { stateDir } = w.deps;
    const workflow = info.workflowExecution && {
      namespace: info.workflowNamespace ?? '',
      workflowId: info.workflowExecution.workflowId,
      runId: info.workflowExecution.runId,
    };
    ({ record, process: child } = await startTry(dir, owner, context.info.attempt, logDir, command, input.prompt, prepared.env, {
      ...(workflow && { workflow }),
      ...(stateDir !== undefined && { register: (started: TryRecord) => listTry(stateDir, dir, started) }),
      faults: w.faults,
    }));
  }
  const current = record;

  let ended: 'timeout' | 'cancelled' | 'unreachable' | 'abandoned' | undefined;
  const stop = (why: 'timeout' | 'cancelled' | 'unreachable') => {
    if (ended) return;
    ended = why;
    killGroup(current.pid, 'SIGTERM');
    setTimeout(() => killGroup(current.pid, 'SIGKILL'), w.killGraceMs).unref();
  };
  const timer = setTimeout(() => stop('timeout'), Math.max(0, current.startedAt + profile.timeoutMs - Date.now()));
  let abandon = () => {};
  const runClosed = async (): Promise<boolean> => {
    const workflow = current.workflow;
    if (!workflow) return false;
    try {
      return (await runStateOn(context.client)(workflow)) === 'closed';
    } catch {
      return false; // no client here (a test's mock environment): the next attempt decides
    }
  };
  const abandoned = new Promise<void>((done) => (abandon = done));
  const onCancel = () => {
    const details = context.cancellationDetails;
    // The server gave this attempt up (timed out, or no longer knows it): the try goes on, and the next
    // attempt adopts it — unless its run has closed, when no attempt ever will.
    if (details?.notFound || details?.timedOut) {
      void runClosed().then((closed) => {
        if (closed) return stop('cancelled');
        ended ??= 'abandoned';
        abandon();
      });
      return;
    }
    stop('cancelled');
  };
  context.cancellationSignal.addEventListener('abort', onCancel);
  // Heartbeat details say what the worker is doing, read from its stdout as it writes it.
  const follower = new TryFollower(executor.dialect, tryFiles(dir, current.logDir).stdout);
  const unreachableTimeoutMs = profile.unreachableTimeoutMs ?? defaultUnreachableTimeoutMs;
  let following = true;
  const beatNow = async () => {
    await follower.poll().catch(() => undefined);
    if (!following) return;
    if (follower.unreachableForMs() > unreachableTimeoutMs) stop('unreachable');
    context.heartbeat(w.portable(carrying(follower.details(current.pid, current.startedAt, adopted ? current.try : undefined), earlier)));
  };
  const beat = setInterval(() => void beatNow(), w.heartbeatIntervalMs);
  context.heartbeat(w.portable(carrying(follower.details(current.pid, current.startedAt, adopted ? current.try : undefined), earlier)));

  await Promise.race([child ? child.then(() => undefined) : tryEnded(dir, current), abandoned]);
  clearInterval(beat);
  following = false;
  context.cancellationSignal.removeEventListener('abort', onCancel);
  if (ended === 'abandoned') {
    timer.unref(); // the try keeps its deadline, whoever adopts it
    throw new CancelledFailure(
      `launch ${input.launchId}: attempt ${context.info.attempt} given up by the server; try ${current.try} goes on for the next attempt to adopt`,
    );
  }
  clearTimeout(timer);
  await w.faults.at('try-ended');
  const { stateDir } = w.deps;
  const strays = stateDir === undefined || watch === undefined ? [] : await noticeStrayWrites(stateDir, watch, dir, current, input.launchId);
  try {
    const result = await report(w, executor, input, current, {
      adopted,
      ended,
      signal: child ? ((await child).signal ?? null) : null,
      unreachable: follower.unreachableNotice,
    });
    const counted = earlier.length === 0 ? result : { ...result, billedBefore: earlier };
    return strays.length === 0 ? counted : { ...counted, strayWrites: strays };
  } catch (error) {
    await clearTryRecord(dir); // a failed try is relaunched, not adopted
    throw withBilled(error, earlier, (billed) =>
      context.heartbeat(w.portable({ ...follower.details(current.pid, current.startedAt, adopted ? current.try : undefined), billed })),
    );
  } finally {
    if (stateDir !== undefined) await unlistTry(stateDir, current.pid); // its group is ended: nothing left to reap
  }
}

/** Reads what an ended try left — its stdout, stderr, exit code and outputs — into a result or a launch failure. */
async function report(
  w: LaunchWiring,
  executor: CliExecutor,
  input: LaunchInput,
  current: TryRecord,
  how: { adopted: boolean; ended: 'timeout' | 'cancelled' | 'unreachable' | undefined; signal: string | null; unreachable?: string | undefined },
): Promise<LaunchResult> {
  const context = Context.current();
  const { profile, dir } = input;
  const { logDir } = current;
  const { ended } = how;
  killGroup(current.pid, 'SIGKILL'); // children left behind by a finished harness
  const durationMs = Date.now() - current.startedAt;
  const files = tryFiles(dir, logDir);
  const stdout = await readFile(files.stdout, 'utf8').catch(() => '');
  const stderr = await readFile(files.stderr, 'utf8').catch(() => '');
  const exitCode = (await readExitCode(dir, current)) ?? null;
  const tryNumber = current.try;
  const record = {
    launchId: input.launchId,
    try: tryNumber,
    ...(how.adopted && { adoptedBy: context.info.attempt }),
    scheduledAt: new Date(context.info.currentAttemptScheduledTimestampMs).toISOString(),
    firstScheduledAt: new Date(context.info.scheduledTimestampMs).toISOString(),
    command: current.command,
    exitCode,
    signal: how.signal,
    ended: ended ?? 'exited',
    durationMs,
  };
  await writeTryLog(dir, logDir, record);

  if (ended === 'cancelled') {
    await setAside(dir, input.outputs, join(dir, logDir, 'aside'));
    throw new CancelledFailure(`launch ${input.launchId} cancelled`);
  }

  const report = executor.report(stdout);
  // claude's stream says a window rejected the request, and when it resets, even when its result text is only "Request rejected (429)".
  const rejected = report.rateLimit?.status === 'rejected' && report.errorText !== undefined ? report.rateLimit : undefined;
  const notice = findUsageLimitIn(executor, stdout, stderr, report) ?? (rejected ? report.errorText : undefined);
  if (notice !== undefined && ended !== 'timeout' && ended !== 'unreachable') {
    await setAside(dir, input.outputs, join(dir, logDir, 'aside'));
    const parsed = parseResetTime(notice, { now: w.clock(), ...(w.deps.timeZone && { timeZone: w.deps.timeZone }) });
    const resetAt = rejected?.resetsAt ? new Date(rejected.resetsAt) : parsed;
    const details: UsageLimitDetails = {
      harness: profile.harness,
      notice: notice.slice(0, 500),
      resetAt: resetAt?.toISOString() ?? null,
      ...(rejected?.type && { rateLimitType: rejected.type }),
    };
    throw ApplicationFailure.create({
      type: 'usage-limit',
      nonRetryable: true,
      message: `${profile.harness} usage limit: ${notice.split('\n')[0]?.slice(0, 200)}${resetAt ? ` (resets ${resetAt.toISOString()})` : ''}`,
      details: [details],
    });
  }

  // A CLI that reports an error in its own output failed, whatever its exit code (pi --mode json exits 0 after "Connection error.").
  const failedWithExit0 = ended === undefined && exitCode === 0 && report.errorText !== undefined;
  if (ended === 'unreachable' || failedWithExit0 || (ended !== 'timeout' && exitCode !== 0)) {
    const setAsideOutputs = await setAside(dir, input.outputs, join(dir, logDir, 'aside'));
    const harnessError = ended === 'unreachable' ? how.unreachable : report.errorText;
    const details: LaunchExitDetails = {
      exitCode,
      stderrTail: stderr.slice(-2000),
      setAside: setAsideOutputs,
      logDir,
      ...(harnessError !== undefined && { harnessError: harnessError.slice(0, 2000) }),
      // What the CLI reported it cost before it failed was billed all the same.
      ...((report.usage !== undefined || report.costUsd !== undefined) && {
        billed: [{ model: report.model ?? profile.model ?? null, usage: report.usage ?? null, costUsd: report.costUsd ?? null }],
      }),
    };
    const why =
      ended === 'unreachable'
        ? `could not reach its endpoint for ${Math.round((profile.unreachableTimeoutMs ?? defaultUnreachableTimeoutMs) / 1000)} s (${how.unreachable ?? 'waiting for network'}); ended`
        : failedWithExit0
          ? `exited 0 but reported an error: ${firstLine(report.errorText ?? '')}`
          : `exited ${exitCode ?? `on ${how.signal ?? 'a signal'}`}`;
    throw ApplicationFailure.create({
      type: 'launch-exit',
      message: `launch ${input.launchId}: ${current.command[0]} ${why} (try ${tryNumber})`,
      details: [details],
    });
  }
  if (ended === 'timeout') await setAside(dir, input.outputs, join(dir, logDir, 'aside'));
  return launchResult(input, report, { exitCode, timedOut: ended === 'timeout', durationMs, try: tryNumber, logDir });
}

/** Names the files a try wrote into the worker's state directory outside every launch directory (see `state-writes.ts`): in its log directory and the worker's log. */
async function noticeStrayWrites(stateDir: string, watch: StrayWatch, dir: string, current: TryRecord, launchId: string): Promise<string[]> {
  const check = await watch
    .check(current.startedAt)
    .catch((error: unknown): StrayCheck => ({ written: [], visited: 0, unexamined: [], failed: String(error) }));
  const { written, unexamined } = check;
  if (written.length === 0 && unexamined.length === 0 && check.failed === undefined) return written;
  const bounds = unexamined.map((where) => `# not looked at past ${STRAY_WALK_LIMIT} entries: ${where}`);
  const failed = check.failed === undefined ? [] : [`# the check failed: ${check.failed}`];
  await writeFile(join(dir, current.logDir, 'stray-writes.txt'), `${[...written, ...bounds, ...failed].join('\n')}\n`).catch(() => undefined);
  const named = `${written.slice(0, 5).join(', ')}${written.length > 5 ? ` and ${written.length - 5} more` : ''}`;
  const where = `the worker's state directory ${stateDir}`;
  const said = [
    ...(written.length > 0 ? [`during try ${current.try}, files were written into ${where} outside every launch directory: ${named}`] : []),
    ...(unexamined.length > 0
      ? [
          `the check of ${where} stopped after ${STRAY_WALK_LIMIT} entries and did not look into ${unexamined.slice(0, 3).join(', ')}${unexamined.length > 3 ? ` and ${unexamined.length - 3} more` : ''}`,
        ]
      : []),
    ...(check.failed !== undefined ? [`the check of ${where} for writes outside every launch directory failed: ${check.failed}`] : []),
  ];
  Context.current().log.warn(`launch ${launchId}: ${said.join('; ')}`);
  return written;
}

/**
 * A non-process executor's launch (a model-API request): its outputs written under the launch
 * directory, digested and returned in the same `LaunchResult` as a CLI's; a usage limit fails the same way.
 */
async function answer(w: LaunchWiring, executor: ApiExecutor, input: LaunchInput): Promise<LaunchResult> {
  const context = Context.current();
  const { dir } = input;
  if (input.files) await writeFiles(dir, { ...input.files, 'prompt.md': input.prompt }, input.launchId);
  const logDir = join(launchStateDir, `try-${context.info.attempt}`);
  await mkdir(join(dir, logDir), { recursive: true });
  await setAside(dir, input.outputs, join(dir, logDir, 'leftover'));
  const startedAt = Date.now();
  const earlier = billedEarlier(context);
  // The activity beats on its own while the request runs; the executor's beats say what it is doing.
  let latest: LaunchActivity = { pid: null, elapsedMs: 0, turns: 0, toolUses: 0 };
  const heartbeat = (details: LaunchActivity) => {
    latest = carrying(details, earlier);
    context.heartbeat(w.portable(latest));
  };
  heartbeat(latest);
  const beat = setInterval(() => context.heartbeat(w.portable({ ...latest, elapsedMs: Date.now() - startedAt })), w.heartbeatIntervalMs);
  let answered: ExecutorAnswer;
  try {
    answered = await executor.answer(input, { signal: context.cancellationSignal, heartbeat, logDir });
  } catch (error) {
    throw withBilled(error, earlier, (billed) => context.heartbeat(w.portable({ ...latest, billed })));
  } finally {
    clearInterval(beat);
  }
  const durationMs = Date.now() - startedAt;
  await writeTryLog(dir, logDir, { launchId: input.launchId, try: context.info.attempt, executor: executor.name, ended: 'answered', durationMs });
  if (answered.usageLimit) {
    await setAside(dir, input.outputs, join(dir, logDir, 'aside'));
    const resetAt = answered.usageLimit.resetAt;
    const details: UsageLimitDetails = {
      harness: input.profile.harness,
      notice: answered.usageLimit.notice.slice(0, 500),
      resetAt,
      ...(earlier.length > 0 && { billed: earlier }),
    };
    throw ApplicationFailure.create({
      type: 'usage-limit',
      nonRetryable: true,
      message: `${input.profile.harness} usage limit: ${firstLine(answered.usageLimit.notice)}${resetAt ? ` (resets ${resetAt})` : ''}`,
      details: [details],
    });
  }
  const result = await launchResult(input, answered.report, { exitCode: 0, timedOut: false, durationMs, try: context.info.attempt, logDir });
  return earlier.length === 0 ? result : { ...result, billedBefore: earlier };
}

/** The billed tries of this launch's earlier attempts, from the last heartbeat the attempt before sent. */
function billedEarlier(context: Context): BilledTry[] {
  const details = context.info.heartbeatDetails as Partial<LaunchActivity> | undefined;
  return Array.isArray(details?.billed) ? details.billed : [];
}

/** Heartbeat details that carry the earlier billed tries on, so the attempt after this one still knows them. */
const carrying = (details: LaunchActivity, billed: BilledTry[]): LaunchActivity => (billed.length === 0 ? details : { ...details, billed });

/**
 * A failed try's failure with every billed try of the launch so far in its details: its own (a
 * malformed answer, a CLI's reported cost) after the earlier attempts'. A relaunched failure beats
 * them first, so the next attempt reads them from its heartbeat details (the worker flushes an
 * activity's last heartbeat before reporting its failure).
 */
function withBilled(error: unknown, earlier: BilledTry[], beat: (billed: BilledTry[]) => void): unknown {
  if (!(error instanceof ApplicationFailure) || (error.type !== 'launch-exit' && error.type !== 'usage-limit')) return error;
  const details = (error.details?.[0] ?? {}) as LaunchExitDetails | UsageLimitDetails;
  const billed = [...earlier, ...(details.billed ?? [])];
  if (billed.length === 0) return error;
  if (!error.nonRetryable) beat(billed);
  return ApplicationFailure.create({ type: error.type, message: error.message, nonRetryable: error.nonRetryable === true, details: [{ ...details, billed }] });
}

/** One shape for every launch that ran to an end, whichever executor ran it. */
async function launchResult(
  input: LaunchInput,
  report: HarnessReport,
  how: Pick<LaunchResult, 'exitCode' | 'timedOut' | 'durationMs' | 'try' | 'logDir'>,
): Promise<LaunchResult> {
  const { profile, dir } = input;
  const { present, missing } = await digest(dir, input.outputs);
  const carried = input.returnOutputs ? await returned(dir, present, input.returnOutputs.maxBytes) : undefined;
  return {
    launchId: input.launchId,
    profile: profile.name,
    harness: profile.harness,
    exitCode: how.exitCode,
    timedOut: how.timedOut,
    durationMs: how.durationMs,
    outputs: present,
    missing,
    model: report.model ?? profile.model ?? null,
    modelSource: report.model ? 'harness' : profile.model ? 'profile' : 'none',
    usage: report.usage ?? null,
    costUsd: report.costUsd ?? null,
    try: how.try,
    logDir: how.logDir,
    ...(report.rateLimitWarning && { rateLimitWarning: { type: report.rateLimitWarning.type ?? 'unknown', resetsAt: report.rateLimitWarning.resetsAt } }),
    ...(report.turns !== undefined && { turns: report.turns, toolUses: report.toolUses ?? 0 }),
    ...(carried && { outputBytes: carried.outputBytes, ...(carried.oversize.length > 0 && { oversize: carried.oversize }) }),
  };
}
