/**
 * The one follow loop: any workflow handle, live progress to stderr, the outcome to stdout, and the
 * exit code the CLI documents — 0 completed or blocked; 2 stopped, awaiting approval or exhausted
 * (a stop the operator can act on, with one next command); 1 failed, cancelled or unreachable. A run
 * that waits out a usage limit by itself is no stop for the operator: the follow says so and goes on.
 * Each command supplies only its formatting (`FollowFormat`).
 */
import { WorkflowFailedError, type QueryDefinition, type Workflow, type WorkflowHandle, type WorkflowResultType } from '@temporalio/client';
import type { LifecycleProgress } from '../../runs/stop.js';
import { TASK_QUEUE } from '../../search-attributes.js';
import { rootMessage, UserError } from './errors.js';
import { failureMessage, transient, type Transient } from './run-errors.js';
import { printJson } from './json-output.js';
import { runnable } from './command-line.js';
import { rendered as shown } from './render-paths.js';
import { settledAtCap } from './spend.js';
import { ProgressLine, resumesBySelf, waitingLine } from './follow-lines.js';

/** How a run closed without failing, as its result says. */
export type ResultStatus = 'completed' | 'blocked' | 'exhausted';

/** What a command tells the loop: how its workflow's progress, stops, result and own failures read. */
export interface FollowFormat<P extends LifecycleProgress, R> {
  /** The progress query (omit for a workflow without one: the loop then waits for the result alone). */
  query?: QueryDefinition<P>;
  /** One line of live progress. */
  line?: (progress: P) => string | Promise<string>;
  /** A stop the run waits in (`stopped`, `awaiting-approval`): the stop and exactly one next command. */
  stopped: (progress: P) => string;
  /** The result's text and how the run closed (`exhausted` exits 2), with the one step left when it is exhausted. */
  result: (result: R) => { text: string; status: ResultStatus; next?: string };
  /** A failure the command reads as an outcome of its own (the probe's failed launch), or undefined. */
  failure?: (error: WorkflowFailedError) => { text: string; exitCode: 0 | 1 | 2; json?: object } | undefined;
  /** The one next command of a stop, for `--json` (the text says it in `stopped`). */
  next?: (progress: P) => string | undefined;
  /** No live progress lines (a schedule's own sweeps, tests). */
  quiet?: boolean;
  /** Print the outcome as a `run-outcome` JSON document on stdout instead of text (progress stays on stderr). */
  json?: boolean;
}

/** How a followed run came out, as `--json` prints it (docs/schemas/run-outcome.v1.schema.json). */
export interface RunOutcome {
  workflowId: string;
  runId?: string;
  status: ResultStatus | 'stopped' | 'awaiting-approval' | 'failed' | 'cancelled';
  exitCode: 0 | 1 | 2;
  next?: string;
  stops?: readonly unknown[];
  message?: string;
  progress?: unknown;
  result?: unknown;
}

/** How long the server may stay silent while following before the CLI gives up (the run goes on): 60 s, or COMMONPLACE_UNREACHABLE_SECONDS. */
const unreachableMs = (seconds = Number(process.env.COMMONPLACE_UNREACHABLE_SECONDS)) => (Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 60_000);
const SERVER_PROBE_MS = 3_000;
const TICK_MS = 500;
const MAX_BACKOFF_MS = 5_000;
const QUERY_DEADLINE_MS = 10_000;

const sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));

type Settled<R> = { value: R } | { error: unknown };

/**
 * Follows a workflow until it closes or waits on the operator. Progress goes to stderr, the
 * outcome to stdout; the exit code is set here (a failure is thrown as a UserError, exit 1).
 */
export async function follow<W extends Workflow, P extends LifecycleProgress>(
  handle: WorkflowHandle<W>,
  format: FollowFormat<P, WorkflowResultType<W>>,
): Promise<void> {
  // Ctrl-C ends the following, not the run: say so, and how to follow it again.
  const interrupted = () => {
    process.stderr.write(
      `\nstopped following ${handle.workflowId}; the run goes on on the server — follow it again with the same command (or watch it in the Web UI)\n`,
    );
    process.exit(130);
  };
  process.once('SIGINT', interrupted);
  try {
    await followUntilClosedOrStopped(handle, format);
  } finally {
    process.off('SIGINT', interrupted);
  }
}

async function followUntilClosedOrStopped<W extends Workflow, P extends LifecycleProgress>(
  handle: WorkflowHandle<W>,
  format: FollowFormat<P, WorkflowResultType<W>>,
): Promise<void> {
  const progressLine = new ProgressLine();
  const patience = unreachableMs();
  // One outage is any run of calls the server did not answer, whatever each failed with: a dead server's
  // calls alternate between unavailable and deadline-exceeded, and neither may restart the clock. The
  // clock runs from the last call the server answered, and a timer gives up at the limit itself: a call
  // the SDK retries for 20 s and more does not hold the give-up back until it fails.
  let lastAnswered = Date.now();
  let giveUpTimer: ReturnType<typeof setTimeout> | undefined;
  let giveUp: (error: UserError) => void = () => undefined;
  const lost = new Promise<never>((_, reject) => (giveUp = reject));
  lost.catch(() => undefined);
  const heard = () => {
    lastAnswered = Date.now();
    clearTimeout(giveUpTimer);
    giveUpTimer = undefined;
  };
  const silent = () => {
    giveUpTimer ??= setTimeout(
      () =>
        giveUp(
          new UserError(
            `lost the Temporal server for ${Math.round(patience / 1000)} s while following ${handle.workflowId}; the run goes on on the server — follow it again with the same command`,
          ),
        ),
      Math.max(0, lastAnswered + patience - Date.now()),
    );
  };
  /** Whatever the loop waits for, or the give-up at the limit, whichever comes first. */
  const orLost = <T>(waiting: Promise<T>): Promise<T> => Promise.race([waiting, lost]);
  const said = new Set<Transient>();
  let closed = false;
  let waitingSaid: string | undefined;

  /** Whether the server answers at all: a call that timed out may be a slow workflow, or a server gone. */
  const serverAnswers = () =>
    handle.client
      .withDeadline(Date.now() + SERVER_PROBE_MS, () => handle.client.workflowService.getSystemInfo({}))
      .then(
        () => true,
        () => false,
      );

  /** Notes a transient error once per kind, and starts the give-up clock when the server is silent. */
  const tolerate = async (kind: Transient) => {
    const isSilent = kind === 'unavailable' || (kind === 'timeout' && !(await orLost(serverAnswers())));
    if (isSilent) silent();
    else heard();
    const shown: Transient = isSilent ? 'unavailable' : kind;
    if (said.has(shown)) return;
    said.add(shown);
    if (shown === 'no-worker')
      progressLine.say(`waiting for a worker: none is polling task queue ${TASK_QUEUE} (start one: \`${runnable('commonplace worker')}\`)`);
    if (shown === 'unavailable') progressLine.say(`the Temporal server is not answering; still following ${handle.workflowId}`);
  };

  const awaitResult = async (): Promise<Settled<WorkflowResultType<W>>> => {
    let backoff = TICK_MS;
    for (;;) {
      try {
        return { value: await handle.result() };
      } catch (error) {
        const kind = transient(error);
        if (kind === undefined) return { error };
        await tolerate(kind).catch(() => undefined);
        await sleep(backoff);
        backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
      }
    }
  };
  const result = awaitResult().then((settled) => {
    closed = true;
    return settled;
  });

  try {
    await followLoop();
  } catch (error) {
    progressLine.end();
    throw error;
  } finally {
    clearTimeout(giveUpTimer);
  }

  async function followLoop(): Promise<void> {
    let wait = TICK_MS;
    for (;;) {
      const race = await orLost(Promise.race([result, sleep(wait).then(() => undefined)]));
      if (race) return finish(race);
      if (format.query === undefined) {
        // Nothing to query: a probe of the server keeps the outage clock true.
        if (await orLost(serverAnswers())) heard();
        else silent();
        wait = Math.min(wait * 2, MAX_BACKOFF_MS);
        continue;
      }
      let progress: P;
      try {
        const query = format.query;
        progress = await orLost(handle.client.withDeadline(Date.now() + QUERY_DEADLINE_MS, () => handle.query(query)));
        heard();
        wait = TICK_MS;
      } catch (error) {
        if (error instanceof UserError) throw error;
        if (closed) continue;
        const kind = transient(error);
        if (kind === undefined) throw error;
        await tolerate(kind);
        wait = Math.min(wait * 2, MAX_BACKOFF_MS);
        continue;
      }
      if (resumesBySelf(progress)) {
        // Not a stop for the operator: the run goes on by itself at the reset, so the follow goes on too.
        if (waitingSaid !== progress.resumesAt) progressLine.say(waitingLine(handle.workflowId, progress));
        waitingSaid = progress.resumesAt;
        wait = MAX_BACKOFF_MS;
        continue;
      }
      if (progress.status === 'stopped' || progress.status === 'awaiting-approval') {
        // A cap's stop prints the cap to resume with once the launches in flight have reported their cost.
        const atStop = await settledAtCap(handle, format.query, progress, (line) => progressLine.say(line));
        progressLine.end();
        if (format.json) {
          const next = format.next?.(atStop);
          printJson('run-outcome', 1, {
            workflowId: handle.workflowId,
            runId: atStop.runId,
            status: progress.status,
            exitCode: 2,
            ...(next !== undefined && { next }),
            stops: atStop.stops,
            progress: atStop,
          } satisfies RunOutcome);
        } else {
          process.stdout.write(`${shown(format.stopped(atStop))}\n`);
        }
        process.exitCode = 2;
        return;
      }
      if (format.line && !format.quiet) progressLine.show(await format.line(progress));
    }
  }

  function finish(settled: Settled<WorkflowResultType<W>>): void {
    progressLine.end();
    if ('value' in settled) {
      const { text, status, next } = format.result(settled.value);
      const exitCode = status === 'exhausted' ? 2 : 0;
      if (format.json) {
        const runId = (settled.value as { runId?: unknown } | undefined)?.runId;
        printJson('run-outcome', 1, {
          workflowId: handle.workflowId,
          ...(typeof runId === 'string' && { runId }),
          status,
          exitCode,
          ...(next !== undefined && { next }),
          result: settled.value,
        } satisfies RunOutcome);
      } else {
        process.stdout.write(`${shown(text)}\n`);
      }
      if (exitCode !== 0) process.exitCode = exitCode;
      return;
    }
    const { error } = settled;
    if (error instanceof UserError) throw error;
    if (error instanceof WorkflowFailedError) {
      const own = format.failure?.(error);
      if (own) {
        if (format.json)
          printJson('run-outcome', 1, {
            workflowId: handle.workflowId,
            status: 'failed',
            exitCode: own.exitCode,
            message: rootMessage(error),
            ...(own.json !== undefined && { result: own.json }),
          } satisfies RunOutcome);
        else process.stdout.write(`${shown(own.text)}\n`);
        if (own.exitCode !== 0) process.exitCode = own.exitCode;
        return;
      }
    }
    const failure = failureMessage(handle.workflowId, error);
    if (format.json)
      printJson('run-outcome', 1, { workflowId: handle.workflowId, status: failure.status, exitCode: 1, message: failure.message } satisfies RunOutcome);
    throw new UserError(failure.message);
  }
}
