import { Context, CancelledFailure } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { ResultPromise } from 'execa';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { launchHeartbeatIntervalMs, type ApiExecutor, type CliExecutor, type Executor, type ExecutorAnswer } from '../../harness/executor.js';
import { executorFor } from '../../harness/executors/index.js';
import { resolveCommand } from '../../harness/installed.js';
import type { HarnessName } from '../../harness/profiles.js';
import type { LaunchActivity, LaunchInput, LaunchResult } from '../../harness/launch-contract.js';
import { namedPaths } from '../../runs/stop.js';
import { noFaults, type FaultPoints } from '../faults.js';
import { TryFollower } from './follow.js';
import { checkInput, freshLogDir, launchResult, setAside, writeLaunchFiles } from './launch-dir.js';
import { billedEarlier, carrying, counted, defaultUnreachableTimeoutMs, report, usageLimitFailure, withBilled, type TryEnd } from './launch-report.js';
import { listTry, runStateOn, unlistTry } from './reap.js';
import { STRAY_WALK_LIMIT, watchStateWrites, type StrayCheck, type StrayWatch } from './state-writes.js';
import { prepareLaunch } from './prepare.js';
import { clearTryRecord, killGroup, launchStateDir, readTryRecord, startTry, tryEnded, tryFiles, tryState, writeTryLog, type TryRecord } from './tries.js';

export interface HarnessDependencies {
  /** The fake harness executable, used by profiles of harness `fake` without their own `command`. */
  fakeHarnessPath: string;
  clock?: () => Date;
  /** The zone a reset time without one is read in; the worker's own by default. */
  timeZone?: string;
  heartbeatIntervalMs?: number;
  /** How long a killed process group gets between SIGTERM and SIGKILL. */
  killGraceMs?: number;
  /** Writes this host's paths as place tokens (`HostPlaces` in src/checkout/): heartbeat details reach the history on a timeout. */
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
  const w: LaunchWiring = {
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
  return { launch };
}

/** A CLI launch's try: started, or adopted from an earlier attempt, and reported. */
async function runTry(w: LaunchWiring, executor: CliExecutor, input: LaunchInput, watch: StrayWatch | undefined): Promise<LaunchResult> {
  const context = Context.current();
  const earlier = billedEarlier(context);
  const { record: current, child, adopted } = await startOrAdopt(w, executor, input);
  // Heartbeat details say what the worker is doing, read from its stdout as it writes it.
  const follower = new TryFollower(executor.dialect, tryFiles(input.dir, current.logDir).stdout);
  const details = () => carrying(follower.details(current.pid, current.startedAt, adopted ? current.try : undefined), earlier);
  const ended = await watchTry(w, input, current, child, follower, details);
  await w.faults.at('try-ended');
  const { stateDir } = w.deps;
  const strays = stateDir === undefined || watch === undefined ? [] : await noticeStrayWrites(stateDir, watch, input.dir, current, input.launchId);
  try {
    const signal = child ? ((await child).signal ?? null) : null;
    const result = await report(
      executor,
      input,
      current,
      { adopted, ended, signal, unreachable: follower.unreachableNotice },
      { now: w.clock, timeZone: w.deps.timeZone },
    );
    return strays.length === 0 ? counted(result, earlier) : { ...counted(result, earlier), strayWrites: strays };
  } catch (error) {
    await clearTryRecord(input.dir); // a failed try is relaunched, not adopted
    throw withBilled(error, earlier, (billed) => context.heartbeat(w.portable({ ...details(), billed })));
  } finally {
    if (stateDir !== undefined) await unlistTry(stateDir, current.pid); // its group is ended: nothing left to reap
  }
}

/** The try an earlier attempt of this activity started, while it runs or ended unreported; else a new one. */
async function startOrAdopt(
  w: LaunchWiring,
  executor: CliExecutor,
  input: LaunchInput,
): Promise<{ record: TryRecord; child?: ResultPromise; adopted: boolean }> {
  const { info } = Context.current();
  const { profile, dir } = input;
  const owner = `${info.workflowExecution?.workflowId ?? ''}/${info.workflowExecution?.runId ?? ''}/${info.activityId}`;
  const record = await readTryRecord(dir);
  if (record?.owner === owner && (await tryState(dir, record)) !== 'gone') return { record, adopted: true };
  // Another launch's try in this directory: never adopted, and never left running to write into this one.
  if (record && record.owner !== owner && (await tryState(dir, record)) === 'running') killGroup(record.pid, 'SIGKILL');
  await clearTryRecord(dir); // killed with its worker (or none): nothing to adopt
  await writeLaunchFiles(input);
  const prepared = await prepareLaunch(executor, profile, dir, launchStateDir);
  const command = executor.commandLine(prepared.profile, w.deps.fakeHarnessPath, prepared.files);
  if (resolveCommand(command.file, { ...process.env, ...prepared.env }) === undefined) {
    throw ApplicationFailure.create({
      type: 'harness-missing',
      nonRetryable: true,
      message: `profile ${profile.name}: cannot run "${command.file}" (${profile.harness} CLI not found on PATH)`,
    });
  }
  const logDir = await freshLogDir(input, info.attempt);
  const { stateDir } = w.deps;
  const workflow = info.workflowExecution && {
    namespace: info.workflowNamespace ?? '',
    workflowId: info.workflowExecution.workflowId,
    runId: info.workflowExecution.runId,
  };
  const started = await startTry(dir, owner, info.attempt, logDir, command, input.prompt, prepared.env, {
    ...(workflow && { workflow }),
    ...(stateDir !== undefined && { register: (started: TryRecord) => listTry(stateDir, dir, started) }),
    faults: w.faults,
  });
  return { record: started.record, child: started.process, adopted: false };
}

/** Waits for a try to end, heartbeating, and ends it at its deadline, on cancellation, or when its endpoint stays unreachable. */
async function watchTry(
  w: LaunchWiring,
  input: LaunchInput,
  current: TryRecord,
  child: ResultPromise | undefined,
  follower: TryFollower,
  details: () => LaunchActivity,
): Promise<TryEnd | undefined> {
  const context = Context.current();
  let ended: TryEnd | 'abandoned' | undefined;
  const stop = (why: TryEnd) => {
    if (ended) return;
    ended = why;
    killGroup(current.pid, 'SIGTERM');
    setTimeout(() => killGroup(current.pid, 'SIGKILL'), w.killGraceMs).unref();
  };
  const timer = setTimeout(() => stop('timeout'), Math.max(0, current.startedAt + input.profile.timeoutMs - Date.now()));
  let abandon = () => {};
  const abandoned = new Promise<void>((done) => (abandon = done));
  const runClosed = async (): Promise<boolean> => {
    if (!current.workflow) return false;
    try {
      return (await runStateOn(context.client)(current.workflow)) === 'closed';
    } catch {
      return false; // no client here (a test's mock environment): the next attempt decides
    }
  };
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
  const unreachableTimeoutMs = input.profile.unreachableTimeoutMs ?? defaultUnreachableTimeoutMs;
  let following = true;
  const beatNow = async () => {
    await follower.poll().catch(() => undefined);
    if (!following) return;
    if (follower.unreachableForMs() > unreachableTimeoutMs) stop('unreachable');
    context.heartbeat(w.portable(details()));
  };
  const beat = setInterval(() => void beatNow(), w.heartbeatIntervalMs);
  context.heartbeat(w.portable(details()));

  await Promise.race([child ? child.then(() => undefined) : tryEnded(input.dir, current), abandoned]);
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
  return ended;
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
  const where = `the worker's state directory ${stateDir}`;
  const said = [
    written.length > 0 && `during try ${current.try}, files were written into ${where} outside every launch directory: ${namedPaths(written)}`,
    unexamined.length > 0 && `the check of ${where} stopped after ${STRAY_WALK_LIMIT} entries and did not look into ${namedPaths(unexamined, 3)}`,
    check.failed !== undefined && `the check of ${where} for writes outside every launch directory failed: ${check.failed}`,
  ].filter(Boolean);
  Context.current().log.warn(`launch ${launchId}: ${said.join('; ')}`);
  return written;
}

/**
 * A non-process executor's launch (a model-API request): its outputs written under the launch
 * directory, digested and returned in the same `LaunchResult` as a CLI's; a usage limit fails the same way.
 */
async function answer(w: LaunchWiring, executor: ApiExecutor, input: LaunchInput): Promise<LaunchResult> {
  const context = Context.current();
  await writeLaunchFiles(input);
  const logDir = await freshLogDir(input, context.info.attempt);
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
  await writeTryLog(input.dir, logDir, { launchId: input.launchId, try: context.info.attempt, executor: executor.name, ended: 'answered', durationMs });
  if (answered.usageLimit) {
    await setAside(input, logDir, 'aside');
    throw usageLimitFailure(input, answered.usageLimit.notice, answered.usageLimit.resetAt, { ...(earlier.length > 0 && { billed: earlier }) });
  }
  return counted(await launchResult(input, answered.report, { exitCode: 0, timedOut: false, durationMs, try: context.info.attempt, logDir }), earlier);
}
