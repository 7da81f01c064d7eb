// A gate sweep as the tests write it: its command line (`review run gates` and the options a schedule
// takes too), a scratch copy of the corpus with a fake-harness scenario of its own, and the workflow's input.
import type { WorkflowStartOptions } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { expect } from '@jest/globals';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { selectPairs } from '../../src/review/status.js';
import type { SweepInput, SweepProgress, SweepSummary } from '../../src/review/sweep-types.js';
import { sweepWorkflowId } from '../../src/runs/workflow-ids.js';
import { TASK_QUEUE } from '../../src/search-attributes.js';
import { expectShape } from './json-shape.js';
import { fakeScenario, ledgerStarts, scratch, waitFor, type FakeRule, type LedgerEntry } from './fake.js';
import { corpusCopy, someNotes } from './kb.js';
import { fakeProfilesFile } from './probe.js';
import { testWorker, uniqueId } from './temporal.js';

/** A sweep's options as a test names them: the fake profile unless another is named. */
export interface SweepFlags {
  kb: string;
  notes?: string[];
  gates?: string | string[];
  profile?: string;
  profiles?: string;
  scenario?: string;
  concurrency?: number;
  grouping?: 'pair' | 'bundle';
}

/** A sweep's options as `review run gates` and `review schedule create` take them. */
export function sweepFlags({ kb, notes = [], gates = [], profile = 'fake', profiles, scenario, concurrency, grouping }: SweepFlags): string[] {
  return [
    ...['--kb', kb, '--profile', profile],
    ...(profiles ? ['--profiles', profiles] : []),
    ...(scenario ? ['--scenario', scenario] : []),
    ...[gates].flat().flatMap((gate) => ['--gates', gate]),
    ...notes.flatMap((note) => ['--notes', note]),
    ...(concurrency === undefined ? [] : ['--concurrency', String(concurrency)]),
    ...(grouping ? ['--grouping', grouping] : []),
  ];
}

/** `review run gates` with a sweep's options, then any more arguments (`--json`, `--max-cost 1`). */
export const gatesCommand = (flags: SweepFlags, ...more: string[]): string[] => ['review', 'run', 'gates', ...sweepFlags(flags), ...more];

/** The run ID a sweep's output names (`sweep GS-… completed`, `--resume GS-…`, `started gates/GS-…`). */
export function sweepRunOf(output: { stdout?: unknown; stderr?: unknown }): string {
  const run = /\b(GS-[0-9a-f]{8}-\S+?)(?=[\s;)]|$)/m.exec(`${String(output.stdout ?? '')}\n${String(output.stderr ?? '')}`)?.[1];
  expect(run).toBeDefined();
  return run!;
}

/** A `--json` run's outcome document (the run-outcome shape, checked), with its exit code checked too. */
export function outcomeOf(run: { exitCode?: number; stdout?: unknown }, exitCode: number): Record<string, unknown> {
  expect(run.exitCode).toBe(exitCode);
  return expectShape(String(run.stdout), 'run-outcome');
}

/** A new sweep run ID no other test uses. */
export const sweepRunId = (prefix = 'GS') => uniqueId(prefix).replace(/\//g, '-');

export interface FakeSweepOptions {
  /** The first `notes` notes of the corpus (1), or these notes. */
  notes?: number | string[];
  gates?: string[];
  /** The profiles file's profiles (one `fake`, three attempts). */
  profiles?: Record<string, Record<string, unknown>>;
}

/** A scratch copy of the corpus, some of its notes and a fake-harness scenario of its own: what a sweep test starts from. */
export interface FakeSweep {
  checkout: string;
  notes: string[];
  gates: string[];
  dir: string;
  /** A file a held launch (`waitForFile: release`) waits for: `releaseLaunch()` writes it. */
  release: string;
  releaseLaunch(): Promise<void>;
  scenario: string;
  ledger: string;
  /** The environment that points the fake harness at the scenario and its ledger. */
  fakeEnv: Record<string, string>;
  profilesFile: string;
  /** The sweep's workflow input, a run of its own: its gates, one unit at a time, batches of ten, the fake profile; `extra` over those. */
  input(extra?: Partial<SweepInput>): SweepInput & { runId: string };
  /** `review run gates` over the sweep's checkout, notes, gates and scenario (`flags` over those), then `more`. */
  command(flags?: Partial<SweepFlags>, ...more: string[]): string[];
  /** The CLI's environment: the server, and the ledger the fake writes to. */
  cliEnv(address: string): Record<string, string>;
  /** The launches started so far. */
  starts(): Promise<LedgerEntry[]>;
  /** The sweep's gate pairs as they stand now. */
  pairs(): ReturnType<typeof selectPairs>;
  /** A worker of the test bundle on the environment, with a state directory of the sweep's (a worker runs once: runUntil shuts it down). */
  worker(env: TestWorkflowEnvironment): ReturnType<typeof testWorker>;
}

/** The scenario's rules, or rules written for the sweep's checkout, notes and release file. */
export type Rules = FakeRule[] | ((sweep: { checkout: string; notes: string[]; release: string }) => FakeRule[] | Promise<FakeRule[]>);

export async function fakeSweep(rules: Rules, options: FakeSweepOptions = {}): Promise<FakeSweep> {
  const checkout = await corpusCopy();
  const notes = typeof options.notes === 'object' ? options.notes : await someNotes(options.notes ?? 1);
  const gates = options.gates ?? ['frontmatter/*'];
  const dir = await scratch();
  const release = join(dir, 'release');
  const { env: fakeEnv, ledger, scenario } = await fakeScenario(dir, typeof rules === 'function' ? await rules({ checkout, notes, release }) : rules);
  const profilesFile = await fakeProfilesFile(dir, options.profiles ?? { fake: { harness: 'fake', timeout: '1m', attempts: 3 } });
  return {
    checkout,
    notes,
    gates,
    dir,
    release,
    releaseLaunch: () => writeFile(release, ''),
    scenario,
    ledger,
    fakeEnv,
    profilesFile,
    input: (extra = {}) => ({
      checkout,
      notes,
      gates,
      criteria: ['gates'],
      grouping: 'pair',
      profile: 'fake',
      concurrency: 1,
      batchSize: 10,
      autoResume: false,
      profilesFile,
      env: fakeEnv,
      ...extra,
      runId: extra.runId ?? sweepRunId(),
    }),
    command: (flags = {}, ...more) => gatesCommand({ kb: checkout, notes, gates, scenario, ...flags }, ...more),
    cliEnv: (address) => ({ TEMPORAL_ADDRESS: address, COMMONPLACE_FAKE_LEDGER: ledger }),
    starts: () => ledgerStarts(ledger),
    pairs: () => selectPairs(checkout, { notes, gates, criteria: ['gates'] }),
    worker: (env) => testWorker(env, { stateDir: join(dir, 'state') }),
  };
}

/** Starts a sweep's workflow as the CLI does, under its run's workflow ID (or the one `options` names: a scheduled sweep's input has no run ID). */
export function startSweep(env: TestWorkflowEnvironment, input: SweepInput, options: Partial<WorkflowStartOptions> = {}) {
  const workflowId = options.workflowId ?? sweepWorkflowId(input.runId ?? '');
  return env.client.workflow.start('gateSweep', { taskQueue: TASK_QUEUE, args: [input], ...options, workflowId });
}

/** Runs a sweep's workflow to its end and returns its summary. */
export async function executeSweep(env: TestWorkflowEnvironment, input: SweepInput, options: Partial<WorkflowStartOptions> = {}): Promise<SweepSummary> {
  return (await startSweep(env, input, options)).result() as Promise<SweepSummary>;
}

/** Waits until a sweep's progress holds, and returns that progress. */
export async function sweepProgressUntil(
  handle: { query<T>(name: string): Promise<T> },
  what: string,
  holds: (progress: SweepProgress) => boolean,
  timeoutMs = 120_000,
): Promise<SweepProgress> {
  let progress: SweepProgress | undefined;
  await waitFor(what, async () => holds((progress = await handle.query<SweepProgress>('progress'))), timeoutMs);
  return progress!;
}

/** Rules that hold the framing-mismatch pair's first launch open until the release file exists; every other launch passes. */
export const heldFramingMismatch = ({ release }: { release: string }): FakeRule[] => [
  { match: 'criterion = sentence/framing-mismatch', attempts: [{ review: 'pass', waitForFile: release }, { review: 'pass' }] },
  { attempts: [{ review: 'pass' }] },
];
