// One launch of a real CLI through the real `launch` activity: the probe workflow (one ask under the
// relaunch rule) on a Temporal test server, with a worker of the project's own kind.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from '@jest/globals';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { createHash } from 'node:crypto';
import type { CommonplaceWorker as Worker } from '../../../src/worker.js';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { LaunchResult } from '../../../src/harness/launch-contract.js';
import { TASK_QUEUE } from '../../../src/search-attributes.js';
import type { ProbeResult } from '../../../src/workflows/probe.js';
import { scratch } from '../fake.js';
import { probeInput, probeResult, inState } from '../probe.js';
import { useTimeSkippingServer } from '../servers.js';
import { testWorker, uniqueId } from '../temporal.js';
import { contractProfile, writeProfilesFile, type RawProfile } from './harnesses.js';
import { reply, type Reply } from './replies.js';
import { startStandIn, type StandIn } from './stand-in.js';

export interface ProbeRun {
  result: ProbeResult;
  /** How many tries the launch activity took (its last attempt number in the history). */
  tries: number;
  /** The last try's stdout and stderr, for failure messages. */
  stdout: string;
  stderr: string;
}

/** The last attempt number of the probe's launch activity, from the workflow's history. */
async function launchTries(env: TestWorkflowEnvironment, workflowId: string): Promise<number> {
  const events = (await env.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const scheduled = events.find((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'launch');
  const started = events.filter((event) => event.activityTaskStartedEventAttributes?.scheduledEventId?.toString() === scheduled?.eventId?.toString());
  return Math.max(0, ...started.map((event) => event.activityTaskStartedEventAttributes?.attempt ?? 0));
}

/** The newest try's log (`.launch/try-N/<file>`), best effort. */
async function lastTryLog(dir: string, file: string): Promise<string> {
  const names = (await readdir(join(dir, '.launch')).catch(() => [] as string[])).filter((name) => /^try-\d+$/.test(name));
  const last = names.sort((a, b) => Number(a.slice(4)) - Number(b.slice(4))).at(-1);
  return last ? readFile(join(dir, '.launch', last, file), 'utf8').catch(() => '') : '';
}

let active: { worker: Worker; running: Promise<unknown> } | undefined;

/** Stops the worker of a probe a timed-out test left running, so the next test can start its own (call it in afterEach). */
export async function stopProbeWorker(): Promise<void> {
  const left = active;
  active = undefined;
  if (!left) return;
  if (left.worker.getState() === 'RUNNING') left.worker.shutdown();
  await left.running.catch(() => undefined);
}

let probes = 0;

/**
 * Probes `profile` and waits for the probe to end: on the time-skipping server the relaunch rule's
 * 30 s and 120 s waits pass without being waited for. Each probe's profile gets a name of its own
 * (`<name>-<pid>-<n>`), so it is an account of its own: a usage limit one test provokes closes no
 * quota gate another test launches through.
 */
export async function probeProfile(env: TestWorkflowEnvironment, name: string, profile: RawProfile): Promise<ProbeRun> {
  const dir = await scratch('commonplace-contract-');
  probes += 1;
  const profileName = `${name}-${process.pid}-${probes}`;
  const profiles = await writeProfilesFile(dir, { [profileName]: profile });
  const worker = await testWorker(env, { stateDir: join(dir, 'state') });
  const workflowId = uniqueId(`probe/contract-${name}`);
  const execution = env.client.workflow.execute('probe', { taskQueue: TASK_QUEUE, workflowId, args: [probeInput(workflowId, profileName, profiles, {})] });
  const running = worker.runUntil(probeResult(execution));
  active = { worker, running };
  // The probe's directory is `<state>/…`, under the state of the worker that ran it: this one's.
  const result = inState(await running, join(dir, 'state'));
  active = undefined;
  return {
    result,
    tries: await launchTries(env, workflowId),
    stdout: await lastTryLog(result.dir, 'stdout.txt'),
    stderr: await lastTryLog(result.dir, 'stderr.txt'),
  };
}

/** A one-line account of a probe for a failed expectation: the outcome, the tries, and the tail of the last try's output. */
export function describeRun(run: ProbeRun): string {
  return `${JSON.stringify(run.result.outcome).slice(0, 600)}\n${run.tries} tries\nstdout: …${run.stdout.slice(-1500)}\nstderr: …${run.stderr.slice(-800)}`;
}

/** The result of a probe that must have completed: a failed expectation otherwise, with the run described. */
export function completedResult(run: ProbeRun): LaunchResult | undefined {
  const { outcome } = run.result;
  expect({ status: outcome.status, why: outcome.status === 'completed' ? '' : describeRun(run) }).toEqual({ status: 'completed', why: '' });
  return outcome.status === 'completed' ? outcome.result : undefined;
}

/** The digest record of the probe file a scripted write leaves: `probe.md` holding `probe ok\n`. */
export const probeFileDigest = { path: 'probe.md', sha256: createHash('sha256').update('probe ok\n').digest('hex'), size: 9 };

/** A contract test's time: a probe can take three tries, each up to its bound, and the relaunch rule's waits. */
export const CONTRACT_TEST_MS = 10 * 60_000;

export interface ContractStandIn {
  standIn(): StandIn;
  /**
   * Probes the shipped profile `name` pointed at the stand-in (or at `url`), the replies scripted, on the test's own
   * time-skipping server. Each try is bounded well below the shipped 30 minutes, so a CLI that waits on its own retries
   * shows up as a timed-out launch, not a hung test.
   */
  probe(name: string, replies: Reply[], options?: { url?: string; auth?: 'api-key' | 'subscription'; overrides?: Partial<RawProfile> }): Promise<ProbeRun>;
}

/**
 * A contract file's stand-in of the API, its counts reset before each test, and a time-skipping server for each test
 * (the quota gates a usage limit closes keep timers there that would hold back a later test's time skipping); the
 * worker of a probe a test left is stopped after it.
 */
export function useContractStandIn(api: 'anthropic' | 'openai'): ContractStandIn {
  const { env } = useTimeSkippingServer();
  let standIn: StandIn | undefined;
  beforeAll(async () => {
    standIn = await startStandIn(api);
  });
  afterAll(async () => {
    await standIn?.close();
  });
  beforeEach(() => standIn?.resetCounts());
  afterEach(() => stopProbeWorker());
  const current = () => {
    if (!standIn) throw new Error('the stand-in is not started: read it inside a test');
    return standIn;
  };
  return {
    standIn: current,
    async probe(name, replies, { url, auth = 'api-key', overrides = {} } = {}) {
      current().script(...replies);
      const { profile } = await contractProfile(name, url ?? current().url, { auth, overrides: { timeout: '90s', ...overrides } });
      return probeProfile(env(), name, profile);
    },
  };
}

/** The usage limits each API answers with: a 429 without and with retry-after, and a 200 whose text is the limit notice. */
export const USAGE_LIMITS: Record<'anthropic' | 'openai', [string, () => Reply][]> = {
  anthropic: [
    ['a 429 rate_limit_error without retry-after', () => reply.usageLimit()],
    ['a 429 rate_limit_error with retry-after: 3600', () => reply.usageLimit({ retryAfterSeconds: 3600 })],
    ['a 200 answer whose text is the limit notice', () => reply.text("You've hit your limit · resets 1:30am (Asia/Dhaka)")],
  ],
  openai: [
    ['a 429 usage_limit_reached without retry-after', () => reply.usageLimit()],
    [
      'a 429 usage_limit_reached with retry-after and resets_at',
      () => reply.usageLimit({ retryAfterSeconds: 3600, resetsAt: Math.floor(Date.now() / 1000) + 3 * 3600 }),
    ],
    [
      'a 200 answer whose text is the limit notice',
      () => reply.text('You’ve hit your usage limit. Visit https://chatgpt.com/codex/settings/usage to purchase more credits or try again at 6:33 PM.'),
    ],
  ],
};

/** The probe ended as `status` after `tries` tries (its outcome and output in the failure message). */
export function expectEnded(run: ProbeRun, status: string, tries?: number): void {
  expect({ status: run.result.outcome.status, why: describeRun(run) }).toMatchObject({ status });
  if (tries !== undefined) expect(run.tries).toBe(tries);
}

/**
 * The shipped profile wrote the probe's file in two requests (the turn that writes it and the closing answer), and the
 * launch recorded the model, where it came from, the usage, and the cost where the harness reports one.
 */
export function expectWroteProbe(run: ProbeRun, standIn: StandIn, recorded: { model: string; modelSource: string; costed: boolean }): void {
  const result = completedResult(run);
  expect(result?.outputs).toEqual([probeFileDigest]);
  expect(result?.missing).toEqual([]);
  expect(result).toMatchObject({ model: recorded.model, modelSource: recorded.modelSource });
  expect(result?.usage?.inputTokens).toBeGreaterThan(0);
  expect(result?.usage?.outputTokens).toBeGreaterThan(0);
  if (recorded.costed) expect(result?.costUsd).toBeGreaterThan(0);
  const stats = standIn.stats();
  expect(stats.agentRequests).toBe(2);
  expect(stats.agentBytes).toBeGreaterThan(1000);
}

/** What a harness CLI does under the contract, where harnesses differ. */
export interface HarnessContract {
  harness: string;
  api: 'anthropic' | 'openai';
  /** The shipped profiles whose probe writes the probe file, and what the launch records of it. */
  profiles: string[];
  recorded: { model: string; modelSource: 'harness' | 'profile'; costed: boolean };
  /** The most agent requests a usage limit may take (the harness's own retries kept low or off); unbounded when absent. */
  limitRequests?: number;
  /** The failures the relaunch rule relaunches until the launch fails after its third try, and the exit code the harness ends each with. */
  relaunched: [string, () => Reply][];
  exitCode: number;
}

/**
 * The contract every harness CLI keeps with the launch activity, against its API's stand-in: the shipped profiles write
 * the declared output and the launch records what the harness reported; each usage limit the API answers with is a
 * usage-limit failure after one launch; a failed launch is relaunched by the relaunch rule, not the CLI, until it ends
 * launch-failed. Returns the stand-in and its probe for the harness's own tests.
 */
export function describeContract(contract: HarnessContract): ContractStandIn {
  const contractStandIn = useContractStandIn(contract.api);
  const { standIn, probe } = contractStandIn;
  const { harness, recorded } = contract;
  const api = contract.api === 'anthropic' ? 'the Messages API' : 'the Responses API';
  const model = recorded.modelSource === 'harness' ? `the model ${harness} reported` : `the profile's model (${harness} reports none)`;
  describe(`${harness} against ${api} stand-in: the launch contract`, () => {
    test.each(contract.profiles)(
      `the shipped profile %s writes its declared output, and the launch records ${model}, its usage${recorded.costed ? ' and its cost' : ''}`,
      async (name) => expectWroteProbe(await probe(name, [reply.write('probe.md', 'probe ok\n'), reply.text('Done.')]), standIn(), recorded),
      CONTRACT_TEST_MS,
    );

    test.each(USAGE_LIMITS[contract.api])(
      'a usage limit as %s is a usage-limit failure after one launch',
      async (_title, limit) => {
        expectEnded(await probe(contract.profiles[0]!, [limit()]), 'usage-limit', 1);
        if (contract.limitRequests !== undefined) expect(standIn().stats().agentRequests).toBeLessThanOrEqual(contract.limitRequests);
      },
      CONTRACT_TEST_MS,
    );

    test.each(contract.relaunched)(
      `${harness} ending on %s with exit ${contract.exitCode} is relaunched by the relaunch rule, not by the CLI, and ends launch-failed after the third try`,
      async (_title, failure) => {
        const run = await probe(contract.profiles[0]!, [failure()]);
        expectEnded(run, 'launch-failed', 3);
        expect(run.result.outcome).toMatchObject({ exitCode: contract.exitCode });
        // A few requests a try at most.
        expect(standIn().stats().agentRequests).toBeLessThanOrEqual(3 * 4);
      },
      CONTRACT_TEST_MS,
    );
  });
  return contractStandIn;
}
