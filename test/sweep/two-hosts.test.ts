// Two hosts on one machine: a worker holding the checkout, and a launch-only worker started in its own
// mount namespace where the checkout's directory is an empty tmpfs, so it cannot read the checkout.
import { existsSync } from 'node:fs';
import { mkdir, realpath, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../../src/paths.js';
import { checkoutQueue } from '../../src/checkout/index.js';
import { readResultFile } from '../../src/review/result-file.js';
import { selectPairs } from '../../src/review/status.js';
import { TASK_QUEUE } from '../../src/search-attributes.js';
import { runCli } from '../helpers/cli.js';
import { fakeScenario, readLedger, scratch, waitFor, type LedgerEntry } from '../helpers/fake.js';
import {
  activitiesIn,
  checkoutUnder,
  historiesOf,
  killHost,
  runningTries,
  startCheckoutWorker,
  startHiddenLaunchWorker,
  stateDir,
  type RanActivity,
  type RecordedHistory,
  type WorkerProcess,
} from '../helpers/hosts.js';
import { checkoutIdOf, someNotes } from '../helpers/kb.js';
import { useDevServer } from '../helpers/servers.js';
import { gatesCommand } from '../helpers/sweep.js';

// The host's death is real (SIGKILL to its process group); only the waits it brings shrink: the file's runs are on a
// clock ten times quicker (test/helpers/scaled-clock.ts), the workers on the test bundle (test/helpers/hosts.ts), so
// the dead host's launch heartbeat timeout and the retry after it pass quickly.
const { env, address } = useDevServer({ quickerClock: 10 });

const gates = 'frontmatter/*';
/** Launches each worker runs at once: half the sweep's concurrency, so four launches held open are two on each. */
const launchesPerHost = 2;
const concurrency = 2 * launchesPerHost;

type Run = Awaited<ReturnType<typeof runCli>>;

/** The sweep's run ID, from the CLI's closing line. */
const runIdOf = (run: Run) => /sweep (GS-\S+) completed/.exec(String(run.stdout))?.[1];

/** The harness launches waiting for their release file, with the launch directory each runs in (from its start entry). */
function waiting(ledger: LedgerEntry[]): { pid: number; cwd: string }[] {
  const cwds = new Map(ledger.filter((entry) => entry.event === 'start').map((entry) => [entry.pid, entry.cwd ?? '']));
  const ended = new Set(ledger.filter((entry) => entry.event === 'end').map((entry) => entry.pid));
  return ledger.filter((entry) => entry.event === 'waiting' && !ended.has(entry.pid)).map((entry) => ({ pid: entry.pid, cwd: cwds.get(entry.pid) ?? '' }));
}

/** Whether each worker's state holds `launchesPerHost` launches waiting for their release. */
function heldOnEach(ledger: LedgerEntry[], states: string[]): boolean {
  const held = waiting(ledger);
  return states.every((state) => held.filter((entry) => entry.cwd.startsWith(state)).length === launchesPerHost);
}

/** Per worker identity, how many launches a set of activities holds. */
function launchesPerWorker(activities: RanActivity[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const activity of activities.filter((entry) => entry.type === 'launch')) counts.set(activity.identity, (counts.get(activity.identity) ?? 0) + 1);
  return counts;
}

/** Each unit's accepted answers: acceptUnit activities that ran, by unit key. */
function acceptsPerUnit(activities: RanActivity[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const activity of activities.filter((entry) => entry.type === 'acceptUnit')) {
    const key = (activity.input[0] as { unit: { key: string } }).unit.key;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/** The launch each accepted answer came from, by `note × criterion` (from acceptUnit inputs). */
function acceptedLaunches(activities: RanActivity[]): Map<string, string> {
  const launches = new Map<string, string>();
  for (const activity of activities.filter((entry) => entry.type === 'acceptUnit')) {
    const { unit, launch } = activity.input[0] as { unit: { note: string; criteria: { id: string }[] }; launch: { launchId: string } };
    for (const criterion of unit.criteria) launches.set(`${unit.note} × ${criterion.id}`, launch.launchId);
  }
  return launches;
}

describe('two hosts on one machine: a checkout worker and a launch-only worker that cannot read the checkout', () => {
  let hostA: string;
  let checkout: string;
  let s1: string;
  let s2: string;
  let scenarioDir: string;
  let holder: WorkerProcess;
  let launcher: WorkerProcess;
  let holderIdentity: string;
  let launcherIdentity: string;

  beforeAll(async () => {
    hostA = await realpath(await scratch('commonplace-host-a-'));
    checkout = await checkoutUnder(hostA);
    [s1, s2, scenarioDir] = await Promise.all([stateDir(), stateDir(), scratch('commonplace-scenario-')]);
    holder = startCheckoutWorker(address(), { kb: [checkout], state: s1, maxLaunches: launchesPerHost });
    launcher = startHiddenLaunchWorker(address(), { hide: hostA, checkout, state: s2, maxLaunches: launchesPerHost });
    await Promise.all([holder.said(/^worker ready/m), launcher.said(/^worker ready/m)]);
    // A worker's identity is the SDK's default, pid@hostname: the launch-only worker's pid is its node process's (unshare and sh exec it).
    holderIdentity = `${holder.pid}@${hostname()}`;
    launcherIdentity = `${launcher.pid}@${hostname()}`;
  });

  /**
   * Starts `review run gates` over the notes (it follows the sweep to its end), every launch held open until
   * the release file exists; returns once each worker holds `launchesPerHost` of them (the sweep's whole concurrency).
   */
  async function startHeldSweep(name: string, notes: string[]) {
    const dir = join(scenarioDir, name);
    await mkdir(dir);
    const release = join(dir, 'release');
    const { scenario, ledger } = await fakeScenario(dir, [{ attempts: [{ review: 'pass', waitForFile: release }] }]);
    const command = gatesCommand({ kb: checkout, scenario, gates, concurrency, notes });
    const running = runCli(command, { env: { TEMPORAL_ADDRESS: address() }, timeout: 300_000 });
    await waitFor(`${launchesPerHost} launches waiting on each worker`, async () => heldOnEach(await readLedger(ledger), [s1, s2]), 120_000);
    return { running, ledger, release };
  }

  afterAll(async () => {
    holder?.process.kill('SIGINT');
    await holder?.process;
    if (launcher && !launcher.ended()) await killHost(launcher, s2);
  });

  test('the launch-only worker cannot read the checkout and says it holds none', async () => {
    expect(existsSync(join(checkout, 'kb', 'notes'))).toBe(true);
    expect(launcher.stderr()).toMatch(/^checkout hidden$/m);
    expect(launcher.stderr()).toMatch(/^worker ready .*task queue commonplace only: holds no checkout/m);
    expect(holder.stderr()).toContain(`task queue commonplace and ${checkoutQueue(checkoutIdOf(checkout))}`);
  });

  describe('a gate sweep over both workers', () => {
    let run: Run;
    let runId: string;
    let histories: RecordedHistory[];
    let activities: RanActivity[];
    let notes: string[];

    beforeAll(async () => {
      notes = await someNotes(4);
      const sweep = await startHeldSweep('both', notes);
      await writeFile(sweep.release, '');
      run = await sweep.running;
      runId = runIdOf(run) ?? 'unknown';
      histories = await historiesOf(env().client, `gates/${runId}`);
      activities = histories.flatMap(activitiesIn);
    });

    test('completes, every pair fresh, each result written in the checkout from the launch accepted for it', async () => {
      expect(run.exitCode).toBe(0);
      const pairs = await selectPairs(checkout, { notes, gates: [gates], criteria: ['gates'] });
      expect(pairs).toHaveLength(20);
      expect(pairs.filter((pair) => pair.status !== 'fresh')).toEqual([]);
      for (const pair of pairs)
        expect(await resultOf(checkout, pair)).toMatchObject({ run: runId, launch: acceptedLaunches(activities).get(`${pair.note} × ${pair.criterion}`) });
    });

    test('both workers ran launches, counted by the worker identity each launch started on', () => {
      const perWorker = launchesPerWorker(activities);
      expect([...perWorker.keys()].sort()).toEqual([holderIdentity, launcherIdentity].sort());
      expect(perWorker.get(holderIdentity)).toBeGreaterThan(0);
      expect(perWorker.get(launcherIdentity)).toBeGreaterThan(0);
      expect(perWorker.get(holderIdentity)! + perWorker.get(launcherIdentity)!).toBe(20);
    });

    test('every checkout activity ran on the checkout queue, on the checkout worker; the shared queue carried only launches and quota-gate calls', () => {
      const onCheckout = activities.filter((activity) => activity.taskQueue === checkoutQueue(checkoutIdOf(checkout)));
      expect(new Set(onCheckout.map((activity) => activity.type))).toEqual(
        new Set(['prepareSweep', 'sweepGuardBaseline', 'loadBatch', 'captureUnit', 'acceptUnit', 'finishSweep']),
      );
      expect(onCheckout.filter((activity) => activity.identity !== holderIdentity)).toEqual([]);
      // The shared queue carries the launches and the quota gate's signals (Temporal calls, no file): nothing else.
      const shared = activities.filter((activity) => activity.taskQueue !== checkoutQueue(checkoutIdOf(checkout)));
      expect(shared.every((activity) => activity.taskQueue === TASK_QUEUE)).toBe(true);
      expect([...new Set(shared.map((activity) => activity.type))].filter((type) => type !== 'launch' && !type.startsWith('quota'))).toEqual([]);
    });

    test('each pair was accepted once', () => {
      const accepts = acceptsPerUnit(activities);
      expect(accepts.size).toBe(20);
      expect([...accepts.values()].every((count) => count === 1)).toBe(true);
    });

    test("no path of either host's directories appears in the sweep's histories", () => {
      expectNoHostPaths(histories, [checkout, hostA, s1, s2, packageRoot()]);
    });
  });

  describe('the launch-only worker killed (-9) while it runs launches', () => {
    let run: Run;
    let runId: string;
    let histories: RecordedHistory[];
    let activities: RanActivity[];
    let notes: string[];
    let killedLaunches: number;
    let killedTries: number;

    beforeAll(async () => {
      notes = (await someNotes(6)).slice(4);
      const sweep = await startHeldSweep('killed', notes);
      killedLaunches = waiting(await readLedger(sweep.ledger)).filter((entry) => entry.cwd.startsWith(s2)).length;
      killedTries = await killHost(launcher, s2);
      await waitFor("the killed worker's harness processes to be gone", async () => (await runningTries(s2)).length === 0);
      await writeFile(sweep.release, '');
      run = await sweep.running;
      runId = runIdOf(run) ?? 'unknown';
      histories = await historiesOf(env().client, `gates/${runId}`);
      activities = histories.flatMap(activitiesIn);
    });

    test('the sweep still completes, every pair fresh', async () => {
      expect(run.exitCode).toBe(0);
      const pairs = await selectPairs(checkout, { notes, gates: [gates], criteria: ['gates'] });
      expect(pairs).toHaveLength(10);
      expect(pairs.filter((pair) => pair.status !== 'fresh')).toEqual([]);
    });

    test("the host's death is whole: the worker and the harness processes of its launches are gone", () => {
      expect(launcher.ended()).toBe(true);
      expect(killedTries).toBe(killedLaunches);
      // (and the sweep's set-up waited until no try the dead worker recorded was still running)
    });

    test("the killed worker's launches were taken over by the checkout worker after their heartbeat timeout", () => {
      const retaken = activities.filter((activity) => activity.type === 'launch' && activity.attempt > 1);
      expect(killedLaunches).toBeGreaterThan(0);
      expect(retaken).toHaveLength(killedLaunches);
      for (const launch of retaken) {
        expect(launch.identity).toBe(holderIdentity);
        expect(launch.lastFailure).toMatch(/heartbeat/i);
      }
      // The killed worker finished nothing: every launch that completed ran on the checkout worker.
      expect([...launchesPerWorker(activities).keys()]).toEqual([holderIdentity]);
    });

    test('no accepted answer is repeated: each pair accepted once, its result naming the launch that answered it', async () => {
      const accepts = acceptsPerUnit(activities);
      expect(accepts.size).toBe(10);
      expect([...accepts.values()].every((count) => count === 1)).toBe(true);
      for (const pair of await selectPairs(checkout, { notes, gates: [gates], criteria: ['gates'] })) {
        expect(await resultOf(checkout, pair)).toMatchObject({ run: runId, launch: acceptedLaunches(activities).get(`${pair.note} × ${pair.criterion}`) });
      }
    });

    test("no path of either host's directories appears in the sweep's histories", () => {
      expectNoHostPaths(histories, [checkout, hostA, s1, s2, packageRoot()]);
    });
  });

  test('the only absolute path in any history of the namespace is the --scenario file, carried as the profile environment COMMONPLACE_FAKE_SCENARIO', async () => {
    const found = new Map<string, string[]>();
    for (const recorded of await historiesOf(env().client)) {
      const history = JSON.parse(recorded.json) as { events: { eventId: string; eventType: string }[] };
      for (const event of history.events) {
        const text = decodedText(event);
        for (const match of text.matchAll(absolutePath)) {
          const carried = /COMMONPLACE_FAKE_SCENARIO\\*":\\*"$/.test(text.slice(0, match.index));
          const path = carried ? 'the --scenario file' : match[0];
          found.set(path, [...(found.get(path) ?? []), `${recorded.workflowId} event ${event.eventId} (${event.eventType})`]);
        }
      }
    }
    expect([...found.keys()].filter((path) => path !== 'the --scenario file').map((path) => `${path}: ${found.get(path)!.join(', ')}`)).toEqual([]);
  });
});

/** The accepted result of a pair, as its result file records it. */
async function resultOf(checkout: string, pair: { note: string; criterion: string }) {
  const parsed = await readResultFile(checkout, pair.note, pair.criterion);
  if (!parsed.ok) throw new Error(`${pair.note} × ${pair.criterion}: no valid result file`);
  return parsed.record;
}

/** Fails naming each history, event and path when any history holds one of the paths (payloads decoded). */
function expectNoHostPaths(histories: RecordedHistory[], paths: string[]): void {
  const found: string[] = [];
  for (const recorded of histories) {
    const history = JSON.parse(recorded.json) as { events: { eventId: string; eventType: string }[] };
    for (const event of history.events) {
      const text = decodedText(event);
      for (const path of paths) if (text.includes(path)) found.push(`${recorded.workflowId} event ${event.eventId} (${event.eventType}): ${path}`);
    }
  }
  expect(found).toEqual([]);
}

/** An absolute path of this machine: under its temporary directory, the package root, a home or /work. */
const absolutePath = new RegExp(
  `(?:${[tmpdir(), '/tmp', packageRoot(), '/root', '/home', '/work'].map((root) => root.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})/[^"\\\\\\s]*`,
  'g',
);

/** An event's JSON with every base64 payload decoded in place. */
function decodedText(event: unknown): string {
  return JSON.stringify(event, (key, value: unknown) =>
    key === 'data' && typeof value === 'string' && /^[A-Za-z0-9+/]*={0,2}$/.test(value) ? Buffer.from(value, 'base64').toString('utf8') : value,
  );
}
