/**
 * `commonplace worker --metrics`: the worker serves the SDK's runtime metrics and the project's own on its
 * Prometheus endpoint. A sweep on the fake harness runs across a worker killed mid-run and the worker that
 * takes over; the launch counters of both add up to the launches the fake's ledger recorded, and a replay of
 * the finished runs from their histories counts nothing again. The killed and the adopting worker are the one
 * `commonplace worker --metrics` builds, on the test bundle (test/helpers/fault-worker.ts), and the file's runs
 * are on a clock ten times quicker, so the adoption waits a scaled heartbeat timeout and relaunch delay (the
 * shipped ones are proved by test/harness/relaunch.test.ts and test/harness/worker-crash.test.ts); the
 * usage-limit sweep runs on the real `commonplace worker --metrics`.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, startCli } from '../helpers/cli.js';
import { readLedger, waitFor } from '../helpers/fake.js';
import { watchedWorker, type WorkerProcess } from '../helpers/hosts.js';
import { freePort } from '../helpers/ports.js';
import { scrape, scrapeTypes, total, type Sample } from '../helpers/prometheus.js';
import { startFaultWorker } from '../helpers/faults.js';
import { useDevServer } from '../helpers/servers.js';
import { fakeSweep } from '../helpers/sweep.js';
import { exportedNames, HISTOGRAM_BUCKETS, METRICS, SDK_METRICS } from '../../src/observability/metrics.js';

const { env, address } = useDevServer({ quickerClock: 10 });

const gate = 'frontmatter/title-as-claim';
const tokens = { input: 1200, output: 150 };
const costUsd = 0.02;

interface Run {
  checkout: string;
  notes: string[];
  runId: string;
  outcome: {
    exitCode: number;
    result: { counts: { written: Record<string, number>; launches: number; costUsd: number; tokens: { input: number; output: number } } };
  };
  ended: number;
  first: { launches: number; samples: Sample[] };
  second: { samples: Sample[]; afterReplay: Sample[]; types: Map<string, string> };
}

function worker(args: string[]): WorkerProcess {
  return watchedWorker(startCli(['worker', ...args], { env: { TEMPORAL_ADDRESS: address() } }));
}

/** The worker `commonplace worker --metrics` builds, on the test bundle whose scaled clock the file's namespace asks for. */
function quickerWorker(checkout: string, state: string, metrics: string): WorkerProcess {
  return watchedWorker(startFaultWorker(undefined, { address: address(), state, kb: [checkout], metrics }));
}

let run: Run;

beforeAll(async () => {
  const review = { review: 'fail' as const, tokens, costUsd };
  // The second note's first try waits for the test, so the first worker dies while it runs (the next worker adopts it).
  const setup = await fakeSweep(
    ({ notes, release }) => [{ match: `note = ${notes[1]}`, attempts: [{ waitForFile: release, ...review }, review] }, { attempts: [review] }],
    { notes: 2, gates: [gate] },
  );
  const { checkout, notes, dir, ledger } = setup;
  const state = join(dir, 'state');
  const firstPort = await freePort();
  const first = quickerWorker(checkout, state, String(firstPort));
  await first.said(/worker ready/);
  expect(first.stderr()).toContain(`metrics for Prometheus: http://127.0.0.1:${firstPort}/metrics`);

  const sweep = runCli(setup.command({ concurrency: 1 }, '--json'), { env: { TEMPORAL_ADDRESS: address() }, timeout: 230_000 });
  await waitFor('the second launch to wait for the test', async () => (await readLedger(ledger)).some((entry) => entry.event === 'waiting'), 120_000);
  const endedFirst = (await readLedger(ledger)).filter((entry) => entry.event === 'end').length;
  let firstLaunches = -1;
  let firstSamples: Sample[] = [];
  await waitFor(
    `the first worker to count ${endedFirst} launch(es)`,
    async () => {
      firstSamples = await scrape(`http://127.0.0.1:${firstPort}/metrics`);
      firstLaunches = total(firstSamples, METRICS.launches.name);
      return firstLaunches === endedFirst;
    },
    60_000,
  );
  first.process.kill('SIGKILL');
  await first.process;

  const secondPort = await freePort();
  const second = quickerWorker(checkout, state, `127.0.0.1:${secondPort}`);
  await second.said(/worker ready/);
  await setup.releaseLaunch();
  const swept = await sweep;
  const outcome = JSON.parse(String(swept.stdout)) as Run['outcome'] & { workflowId: string };
  const ended = (await readLedger(ledger)).filter((entry) => entry.event === 'end').length;
  const url = `http://127.0.0.1:${secondPort}/metrics`;
  let samples: Sample[] = [];
  await waitFor(
    'the second worker to count the launches after the restart',
    async () => {
      samples = await scrape(url);
      return total(samples, METRICS.launches.name) + firstLaunches >= ended;
    },
    60_000,
  );

  // Queries on the closed sweep and its batches: the second worker replays each from its history.
  const client = env().client;
  const sweepHandle = client.workflow.getHandle(outcome.workflowId);
  await sweepHandle.query('progress');
  const history = await sweepHandle.fetchHistory();
  const batches = (history.events ?? []).flatMap((event) => event.childWorkflowExecutionStartedEventAttributes?.workflowExecution?.workflowId ?? []);
  expect(batches.length).toBeGreaterThan(0);
  for (const batch of batches) await client.workflow.getHandle(batch).query('batchProgress');
  const afterReplay = await scrape(url);
  const types = await scrapeTypes(url);
  second.process.kill('SIGINT');
  await second.process;
  run = {
    checkout,
    notes,
    runId: outcome.workflowId.split('/').at(-1) as string,
    outcome,
    ended,
    first: { launches: firstLaunches, samples: firstSamples },
    second: { samples, afterReplay, types },
  };
}, 240_000);

describe('commonplace worker --metrics', () => {
  /** A metric summed over both workers' endpoints: the first's last scrape before the kill, the second's after the sweep. */
  const both = (name: string, where: Record<string, string> = {}) => total(run.first.samples, name, where) + total(run.second.samples, name, where);

  test("the launches both workers counted equal the launches the fake harness ran and the sweep's summary, each counted once across the kill", () => {
    expect(run.outcome.exitCode).toBe(0);
    expect(run.first.launches).toBe(1);
    expect(both(METRICS.launches.name)).toBe(run.ended);
    expect(both(METRICS.launches.name)).toBe(run.outcome.result.counts.launches);
  });

  test('the second worker counts the launch it finished by executor, profile, model and outcome', () => {
    const launches = run.second.samples.filter((sample) => sample.name === METRICS.launches.name);
    expect(
      launches.map((sample) => ({ executor: sample.labels.executor, profile: sample.labels.profile, outcome: sample.labels.outcome, value: sample.value })),
    ).toEqual([{ executor: 'fake', profile: 'fake', outcome: 'completed', value: 1 }]);
    expect(launches[0]?.labels.model).toBeDefined();
  });

  test("tokens by kind and dollars by profile equal the sweep's summary", () => {
    const { counts } = run.outcome.result;
    expect(both(METRICS.tokens.name, { kind: 'input' })).toBe(counts.tokens.input);
    expect(both(METRICS.tokens.name, { kind: 'output' })).toBe(counts.tokens.output);
    expect(counts.tokens.input).toBe(tokens.input * run.ended);
    expect(both(`${METRICS.cost.name}_sum`, { profile: 'fake' })).toBeCloseTo(counts.costUsd, 6);
    expect(both(`${METRICS.cost.name}_count`)).toBe(run.ended);
    expect(both(`${METRICS.launchDuration.name}_count`)).toBe(run.ended);
  });

  test('pairs reviewed by criterion kind and verdict equal the verdicts the sweep wrote', () => {
    expect(run.outcome.result.counts.written.fail).toBe(run.notes.length);
    expect(both(METRICS.pairsReviewed.name, { criterion_kind: 'gate', verdict: 'fail' })).toBe(run.outcome.result.counts.written.fail);
    expect(both(METRICS.pairsReviewed.name)).toBe(run.notes.length);
  });

  test("launch durations and costs are bucketed for seconds and dollars, not the exporter's default", () => {
    for (const definition of [METRICS.launchDuration, METRICS.cost]) {
      const bounds = [...new Set(run.second.samples.filter((sample) => sample.name === `${definition.name}_bucket`).map((sample) => sample.labels.le))];
      expect(bounds).toEqual([...(HISTOGRAM_BUCKETS[definition.name] ?? []).map(String), '+Inf']);
    }
  });

  test("the worker serves the SDK's runtime metrics the dashboard reads beside the project's", () => {
    const served = new Set(run.second.samples.map((sample) => sample.name));
    const missing = SDK_METRICS.flatMap((metric) => exportedNames(metric)).filter((name) => !served.has(name));
    expect(missing).toEqual([]);
  });

  test('replaying the finished sweep and its batches from their histories counts nothing again', () => {
    for (const name of [METRICS.launches.name, METRICS.tokens.name, METRICS.pairsReviewed.name, `${METRICS.cost.name}_count`]) {
      expect({ name, after: total(run.second.afterReplay, name) }).toEqual({ name, after: total(run.second.samples, name) });
    }
  });

  test("every label is snake_case, the SDK's and the project's alike, and none of the project's repeats one the SDK adds", () => {
    const names = new Set([...run.first.samples, ...run.second.samples].flatMap((sample) => Object.keys(sample.labels)));
    expect([...names].filter((name) => !/^[a-z][a-z0-9_]*$/.test(name))).toEqual([]);
    const launch = run.second.samples.find((sample) => sample.name === METRICS.launches.name);
    expect(launch?.labels).toMatchObject({ task_queue: expect.any(String), workflow_type: 'gateBatch', namespace: expect.any(String) });
    for (const definition of Object.values(METRICS))
      expect(definition.labels.filter((name) => ['workflow_kind', 'workflow_type', 'task_queue', 'namespace', 'activity_type'].includes(name))).toEqual([]);
  });

  test("every counter's name ends in _total, the SDK's and the project's alike", () => {
    const counters = [...run.second.types].filter(([, type]) => type === 'counter').map(([name]) => name);
    expect(counters).toEqual(expect.arrayContaining([METRICS.launches.name, METRICS.tokens.name, METRICS.pairsReviewed.name, 'temporal_request_total']));
    expect(counters.filter((name) => !name.endsWith('_total'))).toEqual([]);
  });

  test('no label value names a run, a launch, a note or a path', () => {
    const values = [...run.first.samples, ...run.second.samples, ...run.second.afterReplay].flatMap((sample) => Object.values(sample.labels));
    const bad = values.filter(
      (value) =>
        value.includes(run.runId) ||
        value.startsWith('/') ||
        value.includes(tmpdir()) ||
        value.includes(run.checkout) ||
        /\.md\b/.test(value) ||
        run.notes.some((note) => value.includes(note)),
    );
    expect(bad).toEqual([]);
  });

  test('a --metrics value that is not a port or HOST:PORT fails in one line naming it', async () => {
    const result = await runCli(['worker', '--metrics', 'nine'], { env: { TEMPORAL_ADDRESS: address() } });
    expect(result.exitCode).toBe(1);
    expect(String(result.stderr).trim().split('\n').at(-1)).toBe(
      'commonplace: --metrics (or COMMONPLACE_METRICS) must be a port or HOST:PORT, such as 9464 or 0.0.0.0:9464, got "nine"',
    );
  });
});

describe('commonplace worker --metrics after a usage limit', () => {
  let samples: Sample[];
  let sweepExit: number | undefined;
  const reset = Math.floor(Date.now() / 1000) + 86_400;

  beforeAll(async () => {
    const { checkout, dir, command } = await fakeSweep([{ attempts: [{ usageLimit: `Claude AI usage limit reached|${reset}` }] }], { gates: [gate] });
    const port = await freePort();
    const limited = worker(['--kb', checkout, '--state', join(dir, 'state'), '--metrics', String(port)]);
    await limited.said(/worker ready/);
    // The real `commonplace worker --metrics` says where it serves them.
    expect(limited.stderr()).toContain(`metrics for Prometheus: http://127.0.0.1:${port}/metrics`);
    const sweep = await runCli(command(), { env: { TEMPORAL_ADDRESS: address() } });
    sweepExit = sweep.exitCode;
    await waitFor(
      'the quota gate to be shown closed',
      async () => {
        samples = await scrape(`http://127.0.0.1:${port}/metrics`);
        return total(samples, METRICS.quotaGateClosed.name) === 1;
      },
      60_000,
    );
    limited.process.kill('SIGINT');
    await limited.process;
  }, 200_000);

  test('the sweep stops on the usage limit (exit 2)', () => {
    expect(sweepExit).toBe(2);
  });

  test('the launch is counted with outcome usage-limit, and the limit against its executor', () => {
    expect(total(samples, METRICS.launches.name, { outcome: 'usage-limit', executor: 'fake' })).toBe(1);
    expect(total(samples, METRICS.usageLimits.name, { executor: 'fake' })).toBe(1);
  });

  test('the stop is counted by kind and disposition', () => {
    expect(
      samples
        .filter((sample) => sample.name === METRICS.stops.name)
        .map((sample) => ({ kind: sample.labels.kind, disposition: sample.labels.disposition, value: sample.value })),
    ).toEqual([{ kind: 'usage-limit', disposition: 'retry', value: 1 }]);
  });

  test("the account's gate is shown closed until a minute past the reset the harness printed", () => {
    const closed = samples.filter((sample) => sample.name === METRICS.quotaGateClosed.name);
    expect(closed).toHaveLength(1);
    expect(closed[0]?.labels.account).toMatch(/^fake\/fake~[0-9a-f]{8}$/);
    expect(total(samples, METRICS.quotaGateOpensAt.name, { account: closed[0]?.labels.account as string })).toBe(reset + 60);
  });
});
