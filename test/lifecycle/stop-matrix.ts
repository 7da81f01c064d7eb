/**
 * The stop matrix's shared parts: a small gate sweep on each route a unit can be asked by, every ask it makes
 * counted where it is made, and each way a run goes on in a new execution. A row is a route and a way; each
 * row asserts that no ask answered before (in any execution of the run, or of the run a retry retries) is
 * asked again, and that every selected pair ends with its result file.
 *
 * Routes: `cli`, a CLI harness asked live (the fake harness, counted at its ledger by the prompt's digest);
 * `api`, a model API asked live (an anthropic profile pointed at the local stand-in, counted at the stand-in
 * by the request's prompt); `batch`, the same profile asked as provider batches (`batch: 'always'`).
 * The matrix is a file a route: stop-matrix.test.ts (CLI), stop-matrix-api.test.ts and stop-matrix-batch.test.ts.
 */
import { expect } from '@jest/globals';
import type { WorkflowHandle } from '@temporalio/client';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { selectPairs, type PairStatus } from '../../src/review/status.js';
import type { SweepCounts, SweepInput, SweepProgress, SweepSummary } from '../../src/review/sweep-types.js';
import type { Stop } from '../../src/runs/stop.js';
import { sweepWorkflowId } from '../../src/runs/workflow-ids.js';
import { TASK_QUEUE } from '../../src/search-attributes.js';
import { fakeScenario, readLedger, scratch, waitFor, type FakeAttempt, type FakeRule } from '../helpers/fake.js';
import { corpusCopy, someNotes } from '../helpers/kb.js';
import { reply, startStandIn, type StandIn } from '../helpers/model-apis/index.js';
import type { Reply } from '../helpers/model-apis/replies.js';
import { fakeProfilesFile } from '../helpers/probe.js';
import { scaledClockMemo } from '../helpers/scaled-clock.js';
import type { Room } from '../helpers/servers.js';
import { testWorker, uniqueId } from '../helpers/temporal.js';

export type Route = 'cli' | 'api' | 'batch';
export type Way = 'checkout-change' | 'usage-limit' | 'spend-limit' | 'continue-as-new' | 'retry';

/** Two gates over two notes: four pairs, each its own unit. */
const GATES = ['frontmatter/description-discrimination', 'sentence/framing-mismatch'];
/** The gate whose answers run long in the retry's row (over the origin's `max-output`, under the retry's). */
const LONG_GATE = 'sentence/framing-mismatch';
/** Three findings of 230 characters each (a model API's answer takes findings of up to 300 characters). */
const LONG_FINDINGS = [1, 2, 3].map((n) => `Finding ${n}: ${'the framing promises a mechanism the body never names; '.repeat(4).trim()}`);
const ORIGIN_MAX_OUTPUT = 300;
const RETRY_MAX_OUTPUT = 64 * 1024;
/** The file the checkout-change row edits while an ask is in flight: in the KB, read by no pair. */
const UNREAD_FILE = 'kb/README.md';
const KEY_ENV = 'COMMONPLACE_TEST_STOP_MATRIX_KEY';
const MODEL = 'claude-haiku-4-5';

/** One ask as its route counted it: the prompt's key, and whether an answer came back. */
export interface Ask {
  key: string;
  answered: boolean;
}

/** What a row needs its route to do besides answering every ask. */
interface Needs {
  /** Hold asks in flight (one pair's launch, every request, or the provider batch) until the test lets them answer. */
  hold?: boolean;
  /** The first ask of one pair (CLI) or the second ask (API) meets a usage limit. */
  usageLimitOnce?: boolean;
  /** Each CLI launch reports this cost (a model API's is priced from its tokens). */
  costUsd?: number;
  /** The long gate's answers run over the origin's max-output. */
  long?: boolean;
  /**
   * The provider batch's first request errors, so its unit is asked live: the units a provider batch answered
   * settle before the history budget applies, and only a batch's live units continue as new.
   */
  erroredFirst?: boolean;
}

/** A small sweep on one route, with its asks as counted where they are made. */
interface MatrixSweep {
  route: Route;
  checkout: string;
  dir: string;
  notes: string[];
  pairs: PairStatus[];
  /** The sweep's input under a run ID of its own. */
  input(extra?: Partial<SweepInput>): SweepInput;
  /** Every ask made so far, in the order made. */
  asks(): Promise<Ask[]>;
  /** Waits until an ask is held in flight (`hold`), and returns what lets the held asks answer. */
  inFlight(): Promise<() => Promise<void>>;
  /** Changes the profile's fields in its profiles file (read when a run prepares). */
  changeProfile(fields: Record<string, unknown>): Promise<void>;
  close(): Promise<void>;
}

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The fake harness's rule for one pair: its note's line, then its criterion's. */
const pairRule = (note: string, gate: string, attempts: FakeAttempt[]): FakeRule => ({
  match: `^note = ${escaped(note)}$(.|\\n)*^criterion = ${escaped(gate)}$`,
  attempts,
});

async function sweepBase(route: Route) {
  const checkout = await corpusCopy();
  const dir = await scratch();
  const notes = await someNotes(2);
  const pairs = await selectPairs(checkout, { notes, gates: GATES, criteria: ['gates'] });
  return { route, checkout, dir, notes, pairs };
}

function inputOf(base: { checkout: string; notes: string[] }, profile: string, profilesFile: string, fixed: Partial<SweepInput>) {
  return (extra: Partial<SweepInput> = {}): SweepInput => ({
    checkout: base.checkout,
    runId: uniqueId('GS-stop').replace(/\//g, '-'),
    notes: base.notes,
    gates: GATES,
    criteria: ['gates'],
    grouping: 'pair',
    profile,
    concurrency: 2,
    batchSize: 20,
    autoResume: false,
    profilesFile,
    ...fixed,
    ...extra,
  });
}

/** The CLI route: the fake harness, its launches counted at its ledger by the prompt's SHA-256. */
async function cliSweep(needs: Needs): Promise<MatrixSweep> {
  const base = await sweepBase('cli');
  const release = join(base.dir, 'release');
  if (!needs.hold) await writeFile(release, '');
  const answer: FakeAttempt = { review: 'pass', ...(needs.costUsd !== undefined && { costUsd: needs.costUsd }) };
  const [note] = base.notes;
  const rules: FakeRule[] = [];
  if (needs.hold) rules.push(pairRule(note!, GATES[0]!, [{ ...answer, waitForFile: release }]));
  if (needs.usageLimitOnce) rules.push(pairRule(note!, GATES[0]!, [{ usageLimit: "You've hit your limit · resets 3am (UTC)" }, answer]));
  if (needs.long)
    rules.push({
      match: `^criterion = ${escaped(LONG_GATE)}$`,
      attempts: [{ outputs: { 'review.md': `${LONG_FINDINGS.map((finding) => `- ${finding}`).join('\n')}\n\nResult: warn\n` } }],
    });
  rules.push({ attempts: [answer] });
  const { env, ledger } = await fakeScenario(base.dir, rules);
  let profile: Record<string, unknown> = { harness: 'fake', timeout: '2m', attempts: 3, ...(needs.long && { 'max-output': ORIGIN_MAX_OUTPUT }) };
  const profilesFile = await fakeProfilesFile(base.dir, { fake: profile });
  return {
    ...base,
    input: inputOf(base, 'fake', profilesFile, { env }),
    async asks() {
      const entries = await readLedger(ledger);
      const answered = new Set(entries.filter((entry) => entry.event === 'end' && entry.exitCode === 0).map((entry) => entry.pid));
      return entries.filter((entry) => entry.event === 'start').map((entry) => ({ key: entry.promptSha256 ?? '', answered: answered.has(entry.pid) }));
    },
    async inFlight() {
      await waitFor('a launch held in flight', async () => (await readLedger(ledger)).some((entry) => entry.event === 'waiting'), 120_000);
      return () => writeFile(release, '');
    },
    async changeProfile(fields) {
      profile = { ...profile, ...fields };
      await fakeProfilesFile(base.dir, { fake: profile });
    },
    close: () => Promise.resolve(),
  };
}

/** What a request asks a model: its system blocks, messages and tools (the rest is how it is sent). */
const promptKey = (body: Record<string, unknown>) => JSON.stringify([body.system, body.messages, body.tools]);

/** Every ask the stand-in received, in order: live requests, and each request of each provider batch created. */
export function standInAsks(standIn: StandIn): Ask[] {
  const asks: Ask[] = [];
  let created = 0;
  for (const request of standIn.requests) {
    if (request.method === 'POST' && request.path === '/v1/messages/batches' && request.status === 200) {
      for (const held of standIn.batches.list[created]?.requests ?? []) asks.push({ key: promptKey(held.params), answered: held.result?.kind === 'succeeded' });
      created += 1;
    } else if (!request.side) asks.push({ key: promptKey(request.json ?? {}), answered: request.status === 200 });
  }
  return asks;
}

/** The model-API routes: an anthropic profile pointed at the stand-in, live or (`batch`) as provider batches. */
async function apiSweep(route: 'api' | 'batch', needs: Needs): Promise<MatrixSweep> {
  const base = await sweepBase(route);
  process.env[KEY_ENV] = 'stand-in-key';
  const answer: Reply = needs.long
    ? { kind: 'review', verdict: 'pass', findings: [], perCriterion: { [LONG_GATE]: { verdict: 'warn', findings: LONG_FINDINGS } } }
    : reply.review('pass');
  const script = needs.usageLimitOnce
    ? [answer, reply.usageLimit({ retryAfterSeconds: 3600 }), answer]
    : needs.erroredFirst && route === 'batch'
      ? [reply.serverError(), answer]
      : [answer];
  const standIn = await startStandIn('anthropic', ...script);
  // A provider batch ends at its first poll (no poll's wait), unless the row holds it open.
  standIn.batches.endAfterPolls = needs.hold ? Number.POSITIVE_INFINITY : 1;
  const held = needs.hold && route === 'api' ? standIn.hold() : undefined;
  let profile: Record<string, unknown> = {
    harness: 'anthropic',
    model: MODEL,
    'base-url': standIn.url,
    'api-key-env': KEY_ENV,
    timeout: '1m',
    attempts: 3,
    'max-output-tokens': 1024,
    ...(needs.long && { 'max-output': ORIGIN_MAX_OUTPUT }),
  };
  const profilesFile = join(base.dir, 'worker-profiles.yaml');
  const write = () => writeFile(profilesFile, stringify({ profiles: { api: profile } }));
  await write();
  return {
    ...base,
    input: inputOf(base, 'api', profilesFile, route === 'batch' ? { batch: 'always' } : {}),
    asks: () => Promise.resolve(standInAsks(standIn)),
    async inFlight() {
      if (held !== undefined) {
        await waitFor('a request held in flight', () => Promise.resolve(held.held() > 0), 120_000);
        return () => Promise.resolve(held.release());
      }
      await waitFor('a provider batch submitted and polled', () => Promise.resolve((standIn.batches.list[0]?.polls ?? 0) > 0), 120_000);
      return () => Promise.resolve(standIn.batches.list.forEach((batch) => standIn.batches.end(batch.id)));
    },
    async changeProfile(fields) {
      profile = { ...profile, ...fields };
      await write();
    },
    close: () => standIn.close(),
  };
}

const setUp = (route: Route, needs: Needs) => (route === 'cli' ? cliSweep(needs) : apiSweep(route, needs));

/** The asks made after an earlier ask with the same prompt had been answered. */
export function askedAgain(asks: readonly Ask[]): string[] {
  const answered = new Set<string>();
  const again: string[] = [];
  for (const ask of asks) {
    if (answered.has(ask.key)) again.push(ask.key.slice(0, 200));
    if (ask.answered) answered.add(ask.key);
  }
  return again;
}

const written = (counts: SweepCounts) => Object.values(counts.written).reduce((sum, count) => sum + count, 0);

/** Starts a sweep; a provider batch's runs ask for a clock ten times quicker, so a held batch's next poll comes in 3 s, not 30 s. */
async function start(here: Room, sweep: MatrixSweep, input: SweepInput): Promise<WorkflowHandle> {
  return here.env.client.workflow.start('gateSweep', {
    taskQueue: TASK_QUEUE,
    workflowId: sweepWorkflowId(input.runId!),
    args: [input],
    ...(sweep.route === 'batch' && { memo: scaledClockMemo(0.1) }),
  });
}

/** Waits until the sweep stops, and returns its stop. */
async function stopOf(handle: WorkflowHandle): Promise<Stop> {
  let progress: SweepProgress | undefined;
  await waitFor('the sweep to stop', async () => (progress = await handle.query<SweepProgress>('progress')).status === 'stopped', 120_000);
  return progress!.stops[0]!;
}

/** The selected pairs without their result file. */
async function withoutResult(sweep: MatrixSweep): Promise<string[]> {
  return (await selectPairs(sweep.checkout, { notes: sweep.notes, gates: GATES, criteria: ['gates'] }))
    .filter((pair) => pair.status !== 'fresh')
    .map((pair) => pair.resultPath);
}

/** Whether the first run of the sweep's first batch continued as new (read from the histories). */
async function firstBatchContinued(here: Room, sweepId: string): Promise<boolean> {
  const events = (await here.env.client.workflow.getHandle(sweepId).fetchHistory()).events ?? [];
  const child = events.find((event) => event.childWorkflowExecutionStartedEventAttributes)?.childWorkflowExecutionStartedEventAttributes?.workflowExecution;
  if (!child?.workflowId || !child.runId) return false;
  const batch = (await here.env.client.workflow.getHandle(child.workflowId, child.runId).fetchHistory()).events ?? [];
  return batch.some((event) => event.workflowExecutionContinuedAsNewEventAttributes);
}

interface WayOfGoingOn {
  needs: Needs;
  /** Runs the sweep through its stop and on to its end in a new execution; asserts what is particular to the way. */
  play(here: Room, sweep: MatrixSweep): Promise<SweepSummary>;
}

/** Each way a run goes on in a new execution: how the stop is made, and how the run is moved on. */
const WAYS: Record<Way, WayOfGoingOn> = {
  // A file no pair reads changes while an ask is in flight: that answer is recorded, not accepted; the
  // acknowledge (the Update `review acknowledge` sends) starts a new batch, which judges the recorded answer.
  'checkout-change': {
    needs: { hold: true },
    async play(here, sweep) {
      const handle = await start(here, sweep, sweep.input());
      const release = await sweep.inFlight();
      const file = join(sweep.checkout, UNREAD_FILE);
      await writeFile(file, `${await readFile(file, 'utf8')}\nEdited by hand while a review was in flight.\n`);
      await release();
      const stop = await stopOf(handle);
      expect(stop).toMatchObject({ kind: 'checkout-changed', paths: [UNREAD_FILE] });
      // Some answer is recorded and has no result yet: the new execution has an answered ask to adopt.
      const answered = (await sweep.asks()).filter((ask) => ask.answered).length;
      expect(answered).toBeGreaterThan(sweep.pairs.length - (await withoutResult(sweep)).length);
      await handle.executeUpdate('acknowledge', { args: [{ paths: (stop as Extract<Stop, { kind: 'checkout-changed' }>).paths }] });
      return (await handle.result()) as SweepSummary;
    },
  },
  // A usage limit stops the sweep; the resume opens the account's quota gate and asks a new batch.
  'usage-limit': {
    needs: { usageLimitOnce: true },
    async play(here, sweep) {
      const handle = await start(here, sweep, sweep.input());
      expect(await stopOf(handle)).toMatchObject({ kind: 'usage-limit' });
      await handle.executeUpdate('resume', { args: [{}] });
      const summary = (await handle.result()) as SweepSummary;
      // The limited ask had no answer: the new execution asked it again under the same key (so a repeat of an answered ask would show).
      const asks = await sweep.asks();
      const limited = asks.filter((ask) => !ask.answered);
      expect(limited).toHaveLength(1);
      expect(asks.filter((ask) => ask.key === limited[0]!.key).map((ask) => ask.answered)).toEqual([false, true]);
      return summary;
    },
  },
  // The cap refuses an ask; the resume raises it. A CLI launch reports $0.10 (two go under $0.25); a model
  // API's is priced from its tokens, over the tiny cap at once (a provider batch's first batch is sent whole:
  // nothing priced yet to estimate with, and the second batch stops before it is sent).
  'spend-limit': {
    needs: { costUsd: 0.1 },
    async play(here, sweep) {
      const handle = await start(here, sweep, sweep.input({ maxCostUsd: sweep.route === 'cli' ? 0.25 : 0.0001, batchSize: 3 }));
      expect(await stopOf(handle)).toMatchObject({ kind: 'spend-limit' });
      expect(await withoutResult(sweep)).not.toEqual([]);
      await handle.executeUpdate('resume', { args: [{ maxCostUsd: 10 }] });
      return (await handle.result()) as SweepSummary;
    },
  },
  // A batch past its history budget finishes its asks in flight and continues as new with the units left.
  'continue-as-new': {
    needs: { erroredFirst: true },
    async play(here, sweep) {
      const input = sweep.input({ historyBudget: { batch: 20 } });
      const summary = (await (await start(here, sweep, input)).result()) as SweepSummary;
      expect(await firstBatchContinued(here, sweepWorkflowId(input.runId!))).toBe(true);
      return summary;
    },
  },
  // The long gate's answers are over the origin's max-output: each pair spends its budget (its third attempt
  // is handed what its second was, and adopts that answer) and is a problem. With the cap raised, the retry
  // adopts the answers its origin paid for, judges them again, and accepts them: it asks nothing.
  retry: {
    needs: { long: true },
    async play(here, sweep) {
      const origin = sweep.input();
      const first = (await (await start(here, sweep, origin)).result()) as SweepSummary;
      const longPairs = sweep.pairs.filter((pair) => pair.criterion === LONG_GATE).length;
      expect(first.counts.problems).toBe(longPairs);
      expect(first.counts.written.pass).toBe(sweep.pairs.length - longPairs);
      const asked = (await sweep.asks()).length;
      await sweep.changeProfile({ 'max-output': RETRY_MAX_OUTPUT });
      const retry = (await (await start(here, sweep, sweep.input({ retryOf: origin.runId! }))).result()) as SweepSummary;
      expect(retry).toMatchObject({ status: 'completed', pairs: longPairs, counts: { problems: 0, written: { warn: longPairs } } });
      // Nothing asked by the retry, under another prompt either (a refusal worded anew would make one).
      expect((await sweep.asks()).slice(asked)).toEqual([]);
      return retry;
    },
  },
};

/** Plays one row: the sweep through its stop and on, then what every row asserts. */
export async function playRow(here: Room, route: Route, way: Way): Promise<void> {
  const sweep = await setUp(route, WAYS[way].needs);
  try {
    expect(sweep.pairs.length).toBe(4);
    const worker = await testWorker(here.env, { stateDir: join(sweep.dir, 'state') });
    const summary = await worker.runUntil(WAYS[way].play(here, sweep));
    expect(summary.status).toBe('completed');
    const asks = await sweep.asks();
    // No ask whose prompt was answered before (in any execution of the run, or of the run retried) was asked again.
    expect(askedAgain(asks)).toEqual([]);
    // A result file for every selected pair.
    expect(await withoutResult(sweep)).toEqual([]);
    if (way !== 'retry') {
      // Each pair answered by one ask and written once, whatever the executions between.
      expect(asks.filter((ask) => ask.answered)).toHaveLength(sweep.pairs.length);
      expect(summary.counts.pairsDone).toBe(sweep.pairs.length);
      expect(written(summary.counts)).toBe(sweep.pairs.length);
    }
  } finally {
    await sweep.close();
  }
}

/** A route's rows: each way that applies to it, with the words of its title. */
export function rowsOf(route: Route, applies: (way: Way) => boolean): [string, string, Route, Way][] {
  return (Object.keys(WAYS) as Way[]).filter(applies).map((way): [string, string, Route, Way] => [routeTitle[route], wayTitle[way], route, way]);
}

const routeTitle: Record<Route, string> = { cli: 'CLI-harness', api: 'model-API', batch: 'provider-batch' };

/** A row's title words for its way. */
const wayTitle: Record<Way, string> = {
  'checkout-change': 'a change to a file no pair reads and its acknowledge',
  'usage-limit': 'a usage limit and its resume',
  'spend-limit': 'a spend limit and a resume with a higher cap',
  'continue-as-new': 'a continue-as-new at a small history budget',
  retry: 'a retry of its problem pairs under a raised max-output',
};
