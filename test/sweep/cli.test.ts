import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { selectPairs } from '../../src/review/status.js';
import { runCli, startCli } from '../helpers/cli.js';
import { fakeScenario, readLedger, scratch, waitFor } from '../helpers/fake.js';
import { corpusCopy, someNotes } from '../helpers/kb.js';
import { startDevEnvironment } from '../helpers/temporal.js';

let env: TestWorkflowEnvironment;
let worker: ReturnType<typeof startCli>;
let address: string;
beforeAll(async () => {
  env = await startDevEnvironment();
  address = env.connection.options.address;
  worker = startCli(['worker', '--state', await scratch()], { env: { TEMPORAL_ADDRESS: address } });
});
afterAll(async () => {
  worker?.kill('SIGINT');
  await worker;
  await env?.teardown();
});

const gates = 'frontmatter/*';

describe('commonplace review run gates', () => {
  test('a usage limit stops the sweep with exit 2 and the next command; the same command again completes it, asking no accepted pair twice', async () => {
    const checkout = await corpusCopy();
    const notes = await someNotes(2);
    const dir = await scratch();
    const { scenario, ledger } = await fakeScenario(dir, [
      { match: `note = ${notes[1]}`, attempts: [{ usageLimit: 'Claude AI usage limit reached|1767240000' }, { review: 'pass' }] },
      { attempts: [{ review: 'pass' }] },
    ]);
    const args = ['review', 'run', 'gates', '--kb', checkout, '--profile', 'fake', '--scenario', scenario, '--gates', gates, '--concurrency', '1', ...notes.flatMap((note) => ['--notes', note])];
    const cliEnv = { TEMPORAL_ADDRESS: address, COMMONPLACE_FAKE_LEDGER: ledger };
    const pairs = await selectPairs(checkout, { notes, gates: [gates] });

    const stopped = await runCli(args, { env: cliEnv });
    expect(stopped.exitCode).toBe(2);
    expect(stopped.stdout).toMatch(/stopped: usage-limit \(retry\)/);
    expect(stopped.stdout).toMatch(/the limit resets at 2026-01-01T04:00:00\.000Z/);
    expect(stopped.stdout).toMatch(/continue with: commonplace review run gates --resume GS-/);
    expect(String(stopped.stdout).match(/commonplace review \S+ \S+/g)).toHaveLength(1);
    const freshAtStop = (await selectPairs(checkout, { notes, gates: [gates] })).filter((pair) => pair.status === 'fresh').length;
    expect(freshAtStop).toBeGreaterThan(0);

    const again = await runCli(args, { env: cliEnv });
    expect(again.stderr).toMatch(/resuming gates\/GS-/);
    expect(again.exitCode).toBe(0);
    expect(again.stdout).toMatch(/sweep GS-\S+ completed/);
    expect(again.stdout).toMatch(new RegExp(`results written +pass ${pairs.length}`));
    expect((await selectPairs(checkout, { notes, gates: [gates] })).every((pair) => pair.status === 'fresh')).toBe(true);
    expect((await readLedger(ledger)).filter((entry) => entry.event === 'start')).toHaveLength(pairs.length + 1);

    const nothing = await runCli(args, { env: cliEnv });
    expect(nothing.exitCode).toBe(0);
    expect(nothing.stdout).toMatch(/pairs asked +0/);
  });

  test('a sweep whose pair spends its attempt budget closes exhausted: exit 2, the problem, and exactly one next command, review retry', async () => {
    const checkout = await corpusCopy();
    const notes = await someNotes(1);
    const pairs = await selectPairs(checkout, { notes, gates: [gates] });
    const spent = pairs[0]!.criterion;
    const { scenario, ledger } = await fakeScenario(await scratch(), [
      { match: `criterion = ${spent}$`, attempts: [{ review: 'pass', malformed: [spent] }] },
      { attempts: [{ review: 'pass' }] },
    ]);
    const result = await runCli(['review', 'run', 'gates', '--kb', checkout, '--profile', 'fake', '--scenario', scenario, '--gates', gates, '--concurrency', '1', '--notes', notes[0]!], {
      env: { TEMPORAL_ADDRESS: address, COMMONPLACE_FAKE_LEDGER: ledger },
    });
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toMatch(/^sweep (GS-\S+) ended exhausted: 1 pair spent their attempt budgets$/m);
    const run = /^sweep (GS-\S+) ended exhausted/m.exec(String(result.stdout))?.[1];
    expect(result.stdout).toContain(`problem: ${notes[0]} × ${spent}`);
    expect(String(result.stdout).match(/commonplace review \S+ \S+/g)).toEqual([`commonplace review retry ${run}`]);
    expect(result.stdout).toMatch(new RegExp(`^  next: commonplace review retry ${run}$`, 'm'));
  });

  test('bad options are usage errors (exit 2) naming the option', async () => {
    const checkout = await corpusCopy();
    const grouping = await runCli(['review', 'run', 'gates', '--kb', checkout, '--grouping', 'triple'], { env: { TEMPORAL_ADDRESS: address } });
    expect(grouping.exitCode).toBe(2);
    expect(grouping.stderr).toMatch(/--grouping must be pair or bundle, got "triple"/);
    const concurrency = await runCli(['review', 'run', 'gates', '--kb', checkout, '--concurrency', '0'], { env: { TEMPORAL_ADDRESS: address } });
    expect(concurrency.exitCode).toBe(2);
    expect(concurrency.stderr).toMatch(/--concurrency must be a positive whole number/);
  });
});

describe('commonplace review schedule', () => {
  test('a schedule created through the CLI triggers a sweep, and a second trigger while one runs is skipped', async () => {
    const checkout = await corpusCopy();
    const notes = await someNotes(1);
    const dir = await scratch();
    const { scenario, ledger } = await fakeScenario(dir, [{ attempts: [{ review: 'pass', delayMs: 4000 }] }]);
    const cliEnv = { TEMPORAL_ADDRESS: address, COMMONPLACE_FAKE_LEDGER: ledger };
    const name = `nightly-${Date.now().toString(36)}`;
    const created = await runCli(
      ['review', 'schedule', 'create', name, '--every', '24h', '--paused', '--kb', checkout, '--profile', 'fake', '--scenario', scenario, '--gates', 'sentence/framing-mismatch', '--notes', notes[0]!],
      { env: cliEnv },
    );
    expect(created.stderr).toBe('');
    expect(created.stdout).toMatch(new RegExp(`created schedule ${name} .*every 24h, overlap skip, paused`));

    expect((await runCli(['review', 'schedule', 'trigger', name], { env: cliEnv })).exitCode).toBe(0);
    await waitFor('the triggered sweep to launch', async () => (await readLedger(ledger)).some((entry) => entry.event === 'start'), 60_000);
    expect((await runCli(['review', 'schedule', 'trigger', name], { env: cliEnv })).exitCode).toBe(0);

    const handle = env.client.schedule.getHandle(`gates-${name}`);
    await waitFor('the first sweep to finish', async () => (await handle.describe()).info.runningActions.length === 0, 60_000);
    const described = await handle.describe();
    expect(described.info.recentActions).toHaveLength(1);
    expect(described.info.numActionsSkippedOverlap).toBe(1);
    const sweeps = [];
    for await (const execution of env.client.workflow.list({ query: `WorkflowType = "gateSweep" AND WorkflowId STARTS_WITH "gates/scheduled-${name}"` })) sweeps.push(execution);
    expect(sweeps).toHaveLength(1);
    expect((await readLedger(ledger)).filter((entry) => entry.event === 'start')).toHaveLength(1);

    const listed = await runCli(['review', 'schedule', 'list', '--json'], { env: cliEnv });
    const rows = JSON.parse(String(listed.stdout)) as { name: string; paused: boolean; skipped: number }[];
    expect(rows.find((row) => row.name === name)).toMatchObject({ paused: true, skipped: 1 });
    expect((await runCli(['review', 'schedule', 'unpause', name], { env: cliEnv })).stdout).toMatch(/unpaused schedule/);
    expect((await handle.describe()).state.paused).toBe(false);
    expect((await runCli(['review', 'schedule', 'delete', name], { env: cliEnv })).stdout).toMatch(/deleted schedule/);
    const gone = await runCli(['review', 'schedule', 'trigger', name], { env: cliEnv });
    expect(gone.exitCode).toBe(1);
    expect(gone.stderr).toMatch(new RegExp(`no schedule ${name}`));
  });
});
