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
const backedOff = (wait: number) => Math.min(wait * 2, MAX_BACKOFF_MS);

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
  const line = new ProgressLine();
  const watch = new ServerWatch(handle, line);
  try {
    const settled = await followProgress(handle, format, watch, line, awaitResult(handle, watch));
    line.end();
    if (settled !== undefined) reportResult(handle, format, settled);
  } finally {
    line.end();
    watch.stop();
    process.off('SIGINT', interrupted);
  }
}

/**
 * The server's silences while following, and the give-up at the limit. One outage is any run of calls
 * the server did not answer, whatever each failed with: a dead server's calls alternate between
 * unavailable and deadline-exceeded, and neither may restart the clock. The clock runs from the last
 * call the server answered, and a timer gives up at the limit itself: a call the SDK retries for 20 s
 * and more does not hold the give-up back until it fails.
 */
class ServerWatch {
  private lastAnswered = Date.now();
  private giveUpTimer: ReturnType<typeof setTimeout> | undefined;
  private giveUp: (error: UserError) => void = () => undefined;
  private readonly lost = new Promise<never>((_, reject) => (this.giveUp = reject));
  private readonly said = new Set<Transient>();
  /** Set once the result has settled: a query failing after it is no outage. */
  closed = false;

  constructor(
    private readonly handle: WorkflowHandle,
    private readonly line: ProgressLine,
    private readonly patience = unreachableMs(),
  ) {
    this.lost.catch(() => undefined);
  }

  heard(): void {
    this.lastAnswered = Date.now();
    this.stop();
  }

  silent(): void {
    const message = `lost the Temporal server for ${Math.round(this.patience / 1000)} s while following ${this.handle.workflowId}; the run goes on on the server — follow it again with the same command`;
    this.giveUpTimer ??= setTimeout(() => this.giveUp(new UserError(message)), Math.max(0, this.lastAnswered + this.patience - Date.now()));
  }

  stop(): void {
    clearTimeout(this.giveUpTimer);
    this.giveUpTimer = undefined;
  }

  /** Whatever the loop waits for, or the give-up at the limit, whichever comes first. */
  orLost<T>(waiting: Promise<T>): Promise<T> {
    return Promise.race([waiting, this.lost]);
  }

  /** Whether the server answers at all (a call that timed out may be a slow workflow, or a server gone), kept on the outage clock. */
  async probe(): Promise<boolean> {
    const { client } = this.handle;
    const answers = await this.orLost(
      client
        .withDeadline(Date.now() + SERVER_PROBE_MS, () => client.workflowService.getSystemInfo({}))
        .then(() => true)
        .catch(() => false),
    );
    if (answers) this.heard();
    else this.silent();
    return answers;
  }

  /** Notes a transient error once per kind, and starts the give-up clock when the server is silent. */
  async tolerate(kind: Transient): Promise<void> {
    let isSilent = kind === 'unavailable';
    if (isSilent) this.silent();
    else if (kind === 'timeout') isSilent = !(await this.probe());
    else this.heard();
    const shown: Transient = isSilent ? 'unavailable' : kind;
    if (this.said.has(shown)) return;
    this.said.add(shown);
    if (shown === 'no-worker')
      this.line.say(`waiting for a worker: none is polling task queue ${TASK_QUEUE} (start one: \`${runnable('commonplace worker')}\`)`);
    if (shown === 'unavailable') this.line.say(`the Temporal server is not answering; still following ${this.handle.workflowId}`);
  }
}

/** The run's result, waited for through transient errors. */
async function awaitResult<W extends Workflow>(handle: WorkflowHandle<W>, watch: ServerWatch): Promise<Settled<WorkflowResultType<W>>> {
  try {
    for (let wait = TICK_MS; ; wait = backedOff(wait)) {
      try {
        return { value: await handle.result() };
      } catch (error) {
        const kind = transient(error);
        if (kind === undefined) return { error };
        await watch.tolerate(kind).catch(() => undefined);
        await sleep(wait);
      }
    }
  } finally {
    watch.closed = true;
  }
}

/** Live progress until the run closes (its result returned) or waits on the operator (reported here: undefined). */
async function followProgress<W extends Workflow, P extends LifecycleProgress>(
  handle: WorkflowHandle<W>,
  format: FollowFormat<P, WorkflowResultType<W>>,
  watch: ServerWatch,
  line: ProgressLine,
  result: Promise<Settled<WorkflowResultType<W>>>,
): Promise<Settled<WorkflowResultType<W>> | undefined> {
  let waitingSaid: string | undefined;
  for (let wait = TICK_MS; ;) {
    const settled = await watch.orLost(Promise.race([result, sleep(wait).then(() => undefined)]));
    if (settled) return settled;
    const query = format.query;
    if (query === undefined) {
      // Nothing to query: a probe of the server keeps the outage clock true.
      await watch.probe();
      wait = backedOff(wait);
      continue;
    }
    let progress: P;
    try {
      progress = await watch.orLost(handle.client.withDeadline(Date.now() + QUERY_DEADLINE_MS, () => handle.query(query)));
      watch.heard();
      wait = TICK_MS;
    } catch (error) {
      if (error instanceof UserError) throw error;
      if (watch.closed) continue;
      const kind = transient(error);
      if (kind === undefined) throw error;
      await watch.tolerate(kind);
      wait = backedOff(wait);
      continue;
    }
    if (resumesBySelf(progress)) {
      // Not a stop for the operator: the run goes on by itself at the reset, so the follow goes on too.
      if (waitingSaid !== progress.resumesAt) line.say(waitingLine(handle.workflowId, progress));
      waitingSaid = progress.resumesAt;
      wait = MAX_BACKOFF_MS;
      continue;
    }
    if (progress.status === 'stopped' || progress.status === 'awaiting-approval') {
      // A cap's stop prints the cap to resume with once the launches in flight have reported their cost.
      const atStop = await settledAtCap(handle, query, progress, (said) => line.say(said));
      line.end();
      reportStop(handle, format, atStop);
      return undefined;
    }
    if (format.line && !format.quiet) line.show(await format.line(progress));
  }
}

/** An outcome on stdout, as text or (`--json`) as its `run-outcome` document; its exit code, when not 0, is the process's. */
function report(json: boolean | undefined, outcome: RunOutcome, text: string): void {
  if (json) printJson('run-outcome', 1, outcome);
  else process.stdout.write(`${shown(text)}\n`);
  if (outcome.exitCode !== 0) process.exitCode = outcome.exitCode;
}

/** A stop the run waits in (`stopped`, `awaiting-approval`): the stop with its one next command, exit 2; `message` says why it still waits. */
export function reportStop<P extends LifecycleProgress>(
  handle: WorkflowHandle,
  format: Pick<FollowFormat<P, unknown>, 'json' | 'next' | 'stopped'>,
  progress: P,
  message?: string,
): void {
  const next = format.next?.(progress);
  const status = progress.status as 'stopped' | 'awaiting-approval';
  const outcome: RunOutcome = {
    workflowId: handle.workflowId,
    runId: progress.runId,
    status,
    exitCode: 2,
    ...(next !== undefined && { next }),
    stops: progress.stops,
  };
  report(format.json, { ...outcome, ...(message !== undefined && { message }), progress }, format.stopped(progress));
}

/** How the run closed: its result (exit 0, or 2 exhausted), a failure the command reads as its own, or a failure (exit 1, thrown). */
function reportResult<W extends Workflow, P extends LifecycleProgress>(
  handle: WorkflowHandle<W>,
  format: FollowFormat<P, WorkflowResultType<W>>,
  settled: Settled<WorkflowResultType<W>>,
): void {
  const workflowId = handle.workflowId;
  if ('value' in settled) {
    const { text, status, next } = format.result(settled.value);
    const runId = (settled.value as { runId?: unknown } | undefined)?.runId;
    const outcome = { workflowId, ...(typeof runId === 'string' && { runId }), status, exitCode: status === 'exhausted' ? 2 : 0 } as const;
    return report(format.json, { ...outcome, ...(next !== undefined && { next }), result: settled.value }, text);
  }
  const { error } = settled;
  if (error instanceof UserError) throw error;
  const own = error instanceof WorkflowFailedError ? format.failure?.(error) : undefined;
  if (own) {
    const outcome: RunOutcome = { workflowId, status: 'failed', exitCode: own.exitCode, message: rootMessage(error as WorkflowFailedError) };
    return report(format.json, { ...outcome, ...(own.json !== undefined && { result: own.json }) }, own.text);
  }
  const failure = failureMessage(workflowId, error);
  if (format.json) printJson('run-outcome', 1, { workflowId, status: failure.status, exitCode: 1, message: failure.message } satisfies RunOutcome);
  throw new UserError(failure.message);
}
