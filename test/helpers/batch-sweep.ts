// A gate sweep of a copy of the example KB against a model-API stand-in, live or `--batch`: its profile, its
// input, its runs to an end or a stop, and what the tests read back (requests sent twice, live requests, fresh and valid pairs).
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { collectFiles, validateFiles } from '../../src/kb/validate.js';
import { selectPairs } from '../../src/review/status.js';
import { expect } from '@jest/globals';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { BatchChoice } from '../../src/harness/batches/batch-contract.js';
import type { Grouping, SweepInput, SweepProgress, SweepSummary } from '../../src/review/sweep-types.js';
import { quotaAccount } from '../../src/runs/quota.js';
import { scratch } from './fake.js';
import { workerFaults, type Fault } from './faults.js';
import { kbCopy, exampleKb } from './kb.js';
import { standInBaseUrl, startStandIn, type Reply, type StandIn } from './model-apis/index.js';
import { executeSweep, gatesCommand, startSweep, sweepProgressUntil, type SweepFlags } from './sweep.js';
import { testWorker, uniqueId } from './temporal.js';

export const KEY_ENV = 'COMMONPLACE_TEST_MODEL_API_KEY';
export const gates = ['frontmatter/*', 'sentence/*'];
export const models = { anthropic: 'claude-haiku-4-5', openai: 'gpt-5-mini' } as const;
const twinModels = { anthropic: 'claude-sonnet-4-5', openai: 'gpt-5.1' } as const;
export type Api = keyof typeof models;
export const exampleNotes = [
  'kb/notes/a-bare-writing-prompt-does-not-determine-its-intended-contribution.md',
  'kb/notes/verifiability-gradient.md',
  'kb/notes/why-notes-have-types.md',
];

export interface BatchSweep {
  /** The profile's name: one per sweep, with its twin `<profile>-twin` when asked for. */
  profile: string;
  checkout: string;
  standIn: StandIn;
  dir: string;
  input: (grouping: Grouping) => SweepInput & { runId: string };
  /** `review run gates --batch` over the notes on the stand-in's profile (`flags` over those), then `more`. */
  command: (notes: string[], flags?: Partial<SweepFlags>, ...more: string[]) => string[];
  /** The quota account of the profile (and its twin): the key's, with the endpoint. */
  account: string;
}

export interface ModelApiSweepOptions {
  /** How the units go: as provider batches (`always`), or live (absent). */
  batch?: BatchChoice;
  /**
   * A key variable of the sweep's own, so a limit one test provokes closes no gate of another (in-process workers only:
   * a worker process reads its environment when it starts); otherwise KEY_ENV.
   */
  ownKey?: boolean;
  /** A twin profile `<profile>-twin` on the same key with another model: the same account. */
  twin?: boolean;
  /** How the stand-in is started: a file's `useStandIns()` closes it after the test; otherwise the caller does. */
  start?: typeof startStandIn;
}

let sweeps = 0;

/** A copy of the example KB, a stand-in of the API, and a profile pointing at it (the caller closes the stand-in). */
export async function modelApiSweep(api: Api, replies: Reply[], options: ModelApiSweepOptions = {}): Promise<BatchSweep> {
  sweeps += 1;
  const profile = `${api}-${options.batch ? 'batch-' : ''}${process.pid}-${sweeps}`;
  const keyEnv = options.ownKey ? `${KEY_ENV}_${process.pid}_${sweeps}` : KEY_ENV;
  process.env[keyEnv] = 'stand-in-key';
  const standIn = await (options.start ?? startStandIn)(api, ...replies);
  standIn.cache.minimumTokens = 64; // the example KB's criteria are short: let them pass the minimum
  const checkout = await kbCopy(exampleKb, { prefix: 'commonplace-example-kb-' });
  const dir = await scratch();
  const profilesFile = join(dir, 'worker-profiles.yaml');
  const baseUrl = standInBaseUrl(standIn);
  const raw = { harness: api, model: models[api], 'base-url': baseUrl, 'api-key-env': keyEnv, timeout: '1m', 'max-output-tokens': 1024 };
  const twin = options.twin ? { [`${profile}-twin`]: { ...raw, model: twinModels[api] } } : {};
  await writeFile(profilesFile, stringify({ profiles: { [profile]: raw, ...twin } }));
  const input = (grouping: Grouping) => ({
    checkout,
    runId: uniqueId(options.batch ? 'BATCH' : 'API').replace(/\//g, '-'),
    notes: exampleNotes,
    gates,
    criteria: ['gates' as const],
    grouping,
    profile,
    concurrency: 2,
    batchSize: 20,
    autoResume: false,
    profilesFile,
    ...(options.batch && { batch: options.batch }),
  });
  const command = (notes: string[], flags: Partial<SweepFlags> = {}, ...more: string[]) =>
    gatesCommand({ kb: checkout, profile, profiles: profilesFile, gates, notes, ...flags }, '--batch', ...more);
  const account = quotaAccount({ name: profile, harness: api, apiKeyEnv: keyEnv, baseUrl });
  return { profile, checkout, standIn, dir, input, command, account };
}

/** A `--batch` sweep's set-up (the caller closes the stand-in). */
export const batchSweep = (api: Api, ...replies: Reply[]) => modelApiSweep(api, replies, { batch: 'always' });

/** Runs a sweep on a worker of the test bundle (with the fault, if any) to its end. */
export async function completedSweep(env: TestWorkflowEnvironment, setup: BatchSweep, input: SweepInput, fault?: Fault): Promise<SweepSummary> {
  const worker = await testWorker(env, { stateDir: join(setup.dir, 'state'), ...(fault && { faults: workerFaults(fault) }) });
  return worker.runUntil(executeSweep(env, input));
}

/** Runs a sweep until it stops, and returns its progress then (waiting on its result lets a time-skipping server skip the retries' waits). */
export async function stoppedSweep(env: TestWorkflowEnvironment, setup: BatchSweep, input: SweepInput): Promise<SweepProgress> {
  const worker = await testWorker(env, { stateDir: join(setup.dir, 'state') });
  return worker.runUntil(async () => {
    const handle = await startSweep(env, input);
    const result = handle.result().catch(() => undefined);
    const progress = await sweepProgressUntil(handle, 'the sweep to stop', (each) => each.status === 'stopped');
    // With time skipping, the stopped sweep may already have ended waiting for the operator.
    await handle.terminate('test over').catch(() => undefined);
    await result;
    return progress;
  });
}

/** Requests the stand-in answered live (not inside a batch). */
export const liveRequests = (standIn: StandIn) => standIn.requests.filter((request) => !request.side && request.answered !== 'batch');

/** custom_ids submitted more than once, over every batch the stand-in received. */
export const sentTwice = (standIn: StandIn) => [...standIn.batches.submitted].filter(([, times]) => times > 1).map(([customId]) => customId);

/** The swept notes' pairs that are not fresh, and the KB files validate fails. */
export async function staleAndInvalid(setup: BatchSweep, notes: string[] = exampleNotes): Promise<{ stale: string[]; invalid: string[] }> {
  const stale = (await selectPairs(setup.checkout, { notes, gates, criteria: ['gates'] }))
    .filter((pair) => pair.status !== 'fresh')
    .map((pair) => pair.resultPath);
  const validated = await validateFiles(await collectFiles(setup.checkout, ['kb'], setup.checkout), { repoRoot: setup.checkout });
  return { stale, invalid: validated.results.filter((file) => file.findings.some((finding) => finding.severity === 'fail')).map((file) => file.file) };
}

/** The sweep went as one provider batch: no request submitted twice nor asked live, the notes' pairs fresh and the KB valid. */
export async function expectOneProviderBatch(setup: BatchSweep, notes: string[] = exampleNotes): Promise<void> {
  expect(setup.standIn.batches.list).toHaveLength(1);
  expect(sentTwice(setup.standIn)).toEqual([]);
  expect(liveRequests(setup.standIn)).toEqual([]);
  expect(await staleAndInvalid(setup, notes)).toEqual({ stale: [], invalid: [] });
}
