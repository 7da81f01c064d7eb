import { Context, CancelledFailure } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { execa } from 'execa';
import { access, mkdir, readFile, rename, writeFile, rm } from 'node:fs/promises';
import { dirname, isAbsolute, join, normalize, relative, sep } from 'node:path';
import { sha256 } from '../../fs/digest.js';
import { buildCommandLine } from '../../harness/command.js';
import { findUsageLimit, readHarnessReport } from '../../harness/report.js';
import { parseResetTime } from '../../harness/reset-time.js';
import type { LaunchExitDetails, LaunchInput, LaunchResult, OutputDigest, UsageLimitDetails } from '../../harness/launch-contract.js';

export interface HarnessDependencies {
  /** The fake harness executable, used by profiles of harness `fake` without their own `command`. */
  fakeHarnessPath: string;
  clock?: () => Date;
  /** The zone a reset time without one is read in; the worker's own by default. */
  timeZone?: string;
  heartbeatIntervalMs?: number;
  /** How long a killed process group gets between SIGTERM and SIGKILL. */
  killGraceMs?: number;
}

const launchStateDir = '.launch';

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

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
}

/** A try that outlived its worker (a killed worker leaves its detached harness running) is ended before the next try starts. */
async function endStaleTry(pidFile: string): Promise<void> {
  const text = await readFile(pidFile, 'utf8').catch(() => '');
  const pid = Number(text.trim());
  if (Number.isInteger(pid) && pid > 1) killGroup(pid, 'SIGKILL');
  await rm(pidFile, { force: true });
}

/** Builds the launch activity: the only place a harness process is started. */
export function createHarnessActivities(dependencies: HarnessDependencies) {
  const clock = dependencies.clock ?? (() => new Date());
  const heartbeatIntervalMs = dependencies.heartbeatIntervalMs ?? 2000;
  const killGraceMs = dependencies.killGraceMs ?? 2000;

  /** Runs one harness try in its prepared directory, under the profile's timeout, heartbeating, and reports its outputs by digest. */
  async function launch(input: LaunchInput): Promise<LaunchResult> {
    checkInput(input);
    const context = Context.current();
    const tryNumber = context.info.attempt;
    const { profile, dir } = input;
    const logDir = join(launchStateDir, `try-${tryNumber}`);
    const pidFile = join(dir, launchStateDir, 'pid');
    await mkdir(join(dir, logDir), { recursive: true });
    await endStaleTry(pidFile);
    await setAside(dir, input.outputs, join(dir, logDir, 'leftover'));

    const command = buildCommandLine(profile, dependencies.fakeHarnessPath);
    const started = Date.now();
    const subprocess = execa(command.file, command.args, {
      cwd: dir,
      input: input.prompt,
      env: profile.env,
      detached: true,
      reject: false,
      stripFinalNewline: false,
      maxBuffer: 256 * 1024 * 1024,
    });
    if (subprocess.pid !== undefined) await writeFile(pidFile, String(subprocess.pid));

    let ended: 'timeout' | 'cancelled' | undefined;
    const stop = (why: 'timeout' | 'cancelled') => {
      if (ended || subprocess.pid === undefined) return;
      ended = why;
      killGroup(subprocess.pid, 'SIGTERM');
      setTimeout(() => killGroup(subprocess.pid as number, 'SIGKILL'), killGraceMs).unref();
    };
    const timer = setTimeout(() => stop('timeout'), profile.timeoutMs);
    const onCancel = () => stop('cancelled');
    context.cancellationSignal.addEventListener('abort', onCancel);
    const beat = setInterval(() => context.heartbeat({ pid: subprocess.pid, elapsedMs: Date.now() - started }), heartbeatIntervalMs);
    context.heartbeat({ pid: subprocess.pid, elapsedMs: 0 });

    const outcome = await subprocess;
    clearTimeout(timer);
    clearInterval(beat);
    context.cancellationSignal.removeEventListener('abort', onCancel);
    if (subprocess.pid !== undefined) killGroup(subprocess.pid, 'SIGKILL'); // children left behind by a finished harness
    await rm(pidFile, { force: true });
    const durationMs = Date.now() - started;
    const stdout = typeof outcome.stdout === 'string' ? outcome.stdout : '';
    const stderr = typeof outcome.stderr === 'string' ? outcome.stderr : '';
    await writeFile(join(dir, logDir, 'stdout.txt'), stdout);
    await writeFile(join(dir, logDir, 'stderr.txt'), stderr);
    const record = {
      launchId: input.launchId,
      try: tryNumber,
      scheduledAt: new Date(context.info.currentAttemptScheduledTimestampMs).toISOString(),
      firstScheduledAt: new Date(context.info.scheduledTimestampMs).toISOString(),
      command: [command.file, ...command.args],
      exitCode: outcome.exitCode ?? null,
      signal: outcome.signal ?? null,
      ended: ended ?? 'exited',
      durationMs,
    };
    await writeFile(join(dir, logDir, 'try.json'), `${JSON.stringify(record, null, 2)}\n`);

    if (ended === 'cancelled') {
      await setAside(dir, input.outputs, join(dir, logDir, 'aside'));
      throw new CancelledFailure(`launch ${input.launchId} cancelled`);
    }
    if (outcome.failed && outcome.exitCode === undefined && !ended && (outcome as { code?: string }).code === 'ENOENT') {
      throw ApplicationFailure.create({
        type: 'harness-missing',
        nonRetryable: true,
        message: `profile ${profile.name}: cannot run "${command.file}" (${profile.harness} CLI not found on PATH)`,
      });
    }

    const report = readHarnessReport(profile.harness, stdout);
    const notice = findUsageLimit(profile.harness, stdout, stderr, report);
    if (notice !== undefined && ended !== 'timeout') {
      await setAside(dir, input.outputs, join(dir, logDir, 'aside'));
      const resetAt = parseResetTime(notice, { now: clock(), ...(dependencies.timeZone && { timeZone: dependencies.timeZone }) });
      const details: UsageLimitDetails = { harness: profile.harness, notice: notice.slice(0, 500), resetAt: resetAt?.toISOString() ?? null };
      throw ApplicationFailure.create({
        type: 'usage-limit',
        nonRetryable: true,
        message: `${profile.harness} usage limit: ${notice.split('\n')[0]?.slice(0, 200)}${resetAt ? ` (resets ${resetAt.toISOString()})` : ''}`,
        details: [details],
      });
    }

    const exitCode = outcome.exitCode ?? null;
    if (ended !== 'timeout' && exitCode !== 0) {
      const setAsideOutputs = await setAside(dir, input.outputs, join(dir, logDir, 'aside'));
      const details: LaunchExitDetails = { exitCode, stderrTail: stderr.slice(-2000), setAside: setAsideOutputs, logDir };
      throw ApplicationFailure.create({
        type: 'launch-exit',
        message: `launch ${input.launchId}: ${command.file} exited ${exitCode ?? `on ${outcome.signal ?? 'a signal'}`} (try ${tryNumber})`,
        details: [details],
      });
    }
    if (ended === 'timeout') await setAside(dir, input.outputs, join(dir, logDir, 'aside'));
    const { present, missing } = await digest(dir, input.outputs);
    const model = report.model ?? profile.model ?? null;
    return {
      launchId: input.launchId,
      profile: profile.name,
      harness: profile.harness,
      exitCode,
      timedOut: ended === 'timeout',
      durationMs,
      outputs: present,
      missing,
      model,
      modelSource: report.model ? 'harness' : profile.model ? 'profile' : 'none',
      usage: report.usage ?? null,
      costUsd: report.costUsd ?? null,
      try: tryNumber,
      logDir,
    };
  }

  return { launch };
}
