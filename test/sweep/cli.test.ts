import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { selectPairs } from '../../src/review/status.js';
import { scheduledSweepRunId } from '../../src/runs/workflow-ids.js';
import { runCli } from '../helpers/cli.js';
import { computedOnce } from '../helpers/once.js';
import { expectShape } from '../helpers/json-shape.js';
import { fakeScenario, scratch, waitFor } from '../helpers/fake.js';
import { checkoutIdOf, corpusCopy, someNotes } from '../helpers/kb.js';
import { useDevServerWithCliWorker } from '../helpers/servers.js';
import { fakeSweep, gatesCommand, outcomeOf, sweepFlags, sweepRunOf } from '../helpers/sweep.js';

const { env, address } = useDevServerWithCliWorker();

const gates = 'frontmatter/*';

describe('commonplace review run gates', () => {
  describe('a sweep stopped by a usage limit, then the same command run twice more', () => {
    const results = computedOnce(async () => {
      const sweep = await fakeSweep(
        ({ notes }) => [
          { match: `note = ${notes[1]}`, attempts: [{ usageLimit: 'Claude AI usage limit reached|1767240000' }, { review: 'pass' }] },
          { attempts: [{ review: 'pass' }] },
        ],
        { notes: 2, gates: [gates] },
      );
      const args = sweep.command({ concurrency: 1 });
      const cliEnv = sweep.cliEnv(address());
      const pairCount = (await sweep.pairs()).length;
      const stopped = await runCli(args, { env: cliEnv });
      const freshAtStop = (await sweep.pairs()).filter((pair) => pair.status === 'fresh').length;
      const again = await runCli(args, { env: cliEnv });
      const allFreshAfter = (await sweep.pairs()).every((pair) => pair.status === 'fresh');
      const starts = (await sweep.starts()).length;
      const nothing = await runCli(args, { env: cliEnv });
      const runId = sweepRunOf(again);
      const retryNothing = await runCli(['review', 'retry', runId], { env: cliEnv });
      const retryNothingJson = await runCli(['review', 'retry', runId, '--kb', sweep.checkout, '--json'], { env: cliEnv });
      const nothingJson = await runCli([...args, '--json'], { env: cliEnv });
      const details = await env()
        .client.workflow.getHandle(`gates/${runId}`)
        .describe()
        .then((execution) => execution.staticDetails());
      const swept = sweep;
      const startsAfterRetry = (await sweep.starts()).length;
      return {
        stopped,
        again,
        nothing,
        retryNothing,
        retryNothingJson,
        nothingJson,
        details,
        swept,
        startsAfterRetry,
        pairCount,
        freshAtStop,
        allFreshAfter,
        starts,
      };
    });

    test('review retry of a sweep with no problem pairs says there is nothing to retry and starts nothing', () => {
      const { retryNothing, startsAfterRetry, starts } = results();
      expect(retryNothing.exitCode).toBe(0);
      expect(retryNothing.stdout).toMatch(/^sweep GS-\S+ has no problem pairs: nothing to retry$/m);
      expect(retryNothing.stderr).not.toMatch(/started/);
      expect(startsAfterRetry).toBe(starts);
    });

    test('review retry --kb --json with nothing to retry prints the review-retry shape', () => {
      const { retryNothingJson } = results();
      expect(retryNothingJson.exitCode).toBe(0);
      expect(expectShape(String(retryNothingJson.stdout), 'review-retry')).toMatchObject({ started: false, problems: 0 });
    });

    test('--json prints the completed sweep as one run-outcome document, the summary its result', () => {
      const { nothingJson } = results();
      expect(nothingJson.exitCode).toBe(0);
      const outcome = expectShape(String(nothingJson.stdout), 'run-outcome');
      expect(outcome).toMatchObject({ status: 'completed', exitCode: 0, workflowId: expect.stringMatching(/^gates\/GS-/), result: { pairs: 0 } });
    });

    test('the sweep carries its parameters as static details for the Web UI', () => {
      const { details, swept } = results();
      // Temporal carries the checkout by its ID, never by a path of this host.
      for (const row of [
        `| checkout | checkout ${checkoutIdOf(swept.checkout)} |`,
        `| notes | ${swept.notes.join(' ')} |`,
        `| gates | ${gates.replace(/\*/g, '\\*')} |`,
        '| grouping | pair |',
        '| profile | fake |',
        '| concurrency | 1 |',
        "| batch size | the profile's default (500 on a model API, 100 on a CLI) |",
        '| max cost | none |',
        '| auto-resume | no |',
      ])
        expect(details).toContain(row);
    });

    test('the usage limit stops the sweep with exit 2, saying when the limit resets', () => {
      const { stopped } = results();
      expect(stopped.exitCode).toBe(2);
      expect(stopped.stdout).toMatch(/stopped: usage-limit \(retry\)/);
      expect(stopped.stdout).toMatch(/the limit resets at 2026-01-01T04:00:00\.000Z/);
    });

    test('the stopped sweep names exactly one next command, its resume', () => {
      const { stopped } = results();
      expect(stopped.stdout).toMatch(/continue with: node \S+ review run gates --resume GS-/);
      expect(String(stopped.stdout).match(/commonplace\S* review \S+ \S+/g)).toHaveLength(1);
    });

    test('the results accepted before the stop are written at the stop', () => {
      const { freshAtStop } = results();
      expect(freshAtStop).toBeGreaterThan(0);
    });

    test('the same command again resumes the sweep and completes it, every pair fresh', () => {
      const { again, pairCount, allFreshAfter } = results();
      expect(again.stderr).toMatch(/resuming gates\/GS-/);
      expect(again.exitCode).toBe(0);
      expect(again.stdout).toMatch(/sweep GS-\S+ completed/);
      expect(again.stdout).toMatch(new RegExp(`results written +pass ${pairCount}`));
      expect(allFreshAfter).toBe(true);
    });

    test('the resumed sweep asks no accepted pair twice', () => {
      const { pairCount, starts } = results();
      expect(starts).toBe(pairCount + 1);
    });

    test('the same command once everything is fresh asks nothing', () => {
      const { nothing } = results();
      expect(nothing.exitCode).toBe(0);
      expect(nothing.stdout).toMatch(/pairs asked +0/);
    });
  });

  test('a sweep whose pair spends its attempt budget closes exhausted: exit 2, the problem, and exactly one next command, review retry', async () => {
    const checkout = await corpusCopy();
    const notes = await someNotes(1);
    const spent = (await selectPairs(checkout, { notes, gates: [gates], criteria: ['gates'] }))[0]!.criterion;
    const { scenario, ledger } = await fakeScenario(await scratch(), [
      { match: `criterion = ${spent}$`, attempts: [{ review: 'pass', malformed: [spent] }] },
      { attempts: [{ review: 'pass' }] },
    ]);
    const args = gatesCommand({ kb: checkout, scenario, gates, concurrency: 1, notes });
    const cliEnv = { TEMPORAL_ADDRESS: address(), COMMONPLACE_FAKE_LEDGER: ledger };
    const result = await runCli(args, { env: cliEnv });
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toMatch(/^sweep (GS-\S+) ended exhausted: 1 pair spent their attempt budgets$/m);
    const run = /^sweep (GS-\S+) ended exhausted/m.exec(String(result.stdout))?.[1];
    expect(result.stdout).toContain(`problem: ${notes[0]} × ${spent}`);
    expect(String(result.stdout).match(/commonplace\S* review \S+ \S+/g)).toEqual([expect.stringMatching(new RegExp(`review retry ${run}$`))]);
    expect(result.stdout).toMatch(new RegExp(`^  next: node \\S+ review retry ${run} --kb \\S+ --address \\S+( --namespace \\S+)?$`, 'm'));

    // The same command again sweeps the pair still stale and ends exhausted again: --json says so, with the one step left.
    const again = await runCli([...args, '--json'], { env: cliEnv });
    expect(outcomeOf(again, 2)).toMatchObject({ status: 'exhausted', exitCode: 2, next: `commonplace review retry ${run}`, result: { status: 'exhausted' } });
  });

  test.each([
    { option: ['--grouping', 'triple'], message: /--grouping must be pair or bundle, got "triple"/ },
    { option: ['--concurrency', '0'], message: /--concurrency must be a positive whole number/ },
  ])('$option.0 $option.1 is a usage error (exit 1) naming the option', async ({ option, message }) => {
    const checkout = await corpusCopy();
    const run = await runCli(['review', 'run', 'gates', '--kb', checkout, ...option], { env: { TEMPORAL_ADDRESS: address() } });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toMatch(message);
  });
});

describe('commonplace review schedule', () => {
  describe('a paused schedule created through the CLI, triggered twice while its sweep runs', () => {
    const results = computedOnce(async () => {
      // The first sweep's launch is held open until the test has triggered again: the second trigger
      // comes while the sweep runs, however slow the machine.
      const sweep = await fakeSweep(({ release }) => [{ attempts: [{ review: 'pass', waitForFile: release }] }], { gates: ['sentence/framing-mismatch'] });
      const { checkout } = sweep;
      const cliEnv = sweep.cliEnv(address());
      const name = `nightly-${Date.now().toString(36)}`;
      const flags = sweepFlags({ kb: checkout, scenario: sweep.scenario, gates: sweep.gates, notes: sweep.notes });
      const created = await runCli(['review', 'schedule', 'create', name, '--every', '24h', '--paused', ...flags], { env: cliEnv });
      const triggers = [await runCli(['review', 'schedule', 'trigger', name], { env: cliEnv })];
      await waitFor('the triggered sweep to launch', async () => (await sweep.starts()).length > 0, 60_000);
      triggers.push(await runCli(['review', 'schedule', 'trigger', name], { env: cliEnv }));
      const handle = env().client.schedule.getHandle(`gates-${name}`);
      await waitFor('the second trigger to be skipped', async () => (await handle.describe()).info.numActionsSkippedOverlap > 0, 60_000);
      const manualWhileScheduled = await runCli(['review', 'run', 'gates', ...flags], { env: cliEnv });
      await sweep.releaseLaunch();

      await waitFor('the first sweep to finish', async () => (await handle.describe()).info.runningActions.length === 0, 120_000);
      const described = await handle.describe();
      const details = await env()
        .client.workflow.getHandle(described.info.recentActions[0]!.action.workflow.workflowId)
        .describe()
        .then((execution) => execution.staticDetails());
      let sweeps = 0;
      const checkoutId = (await readFile(join(checkout, '.commonplace', 'checkout-id'), 'utf8')).trim();
      for await (const _execution of env().client.workflow.list({
        query: `WorkflowType = "gateSweep" AND WorkflowId STARTS_WITH "gates/${scheduledSweepRunId(checkoutId, name, env().namespace)}"`,
      }))
        sweeps += 1;
      const starts = (await sweep.starts()).length;

      const listed = await runCli(['review', 'schedule', 'list', '--json'], { env: cliEnv });
      const unpaused = await runCli(['review', 'schedule', 'unpause', name], { env: cliEnv });
      const pausedAfterUnpause = (await handle.describe()).state.paused;
      const deleted = await runCli(['review', 'schedule', 'delete', name, '--json'], { env: cliEnv });
      const triggerAfterDelete = await runCli(['review', 'schedule', 'trigger', name], { env: cliEnv });
      const createdJson = await runCli(
        ['review', 'schedule', 'create', `${name}-weekly`, '--cron', '0 3 * * 1', '--overlap', 'buffer-one', '--paused', '--json', ...flags],
        { env: cliEnv },
      );
      const pausedJson = await runCli(['review', 'schedule', 'pause', `${name}-weekly`, '--json'], { env: cliEnv });
      const deletedJson = await runCli(['review', 'schedule', 'delete', `${name}-weekly`, '--json'], { env: cliEnv });
      return {
        name,
        created,
        triggers,
        described,
        details,
        sweeps,
        starts,
        listed,
        unpaused,
        pausedAfterUnpause,
        deleted,
        triggerAfterDelete,
        createdJson,
        pausedJson,
        deletedJson,
        manualWhileScheduled,
        checkout,
        checkoutId,
      };
    });

    test('create says what it made: the interval, the overlap policy skip, and paused', () => {
      const { name, created } = results();
      expect(created.stderr).toBe('');
      expect(created.stdout).toMatch(new RegExp(`created schedule ${name} .*every 24h, overlap skip, paused`));
    });

    test('a trigger starts one sweep, which launches once', () => {
      const { triggers, described, sweeps, starts } = results();
      expect(triggers.map((trigger) => trigger.exitCode)).toEqual([0, 0]);
      expect(described.info.recentActions).toHaveLength(1);
      expect(sweeps).toBe(1);
      expect(starts).toBe(1);
    });

    test('a second trigger while the sweep runs is skipped as an overlap', () => {
      const { described } = results();
      expect(described.info.numActionsSkippedOverlap).toBe(1);
    });

    test('list --json prints the schedule-list shape: the schedule paused, with its checkout, its overlap policy and its skipped trigger', () => {
      const { name, listed, checkoutId } = results();
      const rows = expectShape(String(listed.stdout), 'schedule-list')['schedules'] as { name: string }[];
      expect(rows.find((row) => row.name === name)).toMatchObject({
        paused: true,
        skipped: 1,
        checkout: `<checkout:${checkoutId}>`,
        spec: 'every 24h',
        overlap: 'skip',
      });
    });

    test('a manual sweep of the same checkout while the scheduled one runs is refused, naming it (nothing launched twice)', () => {
      const { name, manualWhileScheduled, checkoutId } = results();
      expect(manualWhileScheduled.exitCode).toBe(1);
      expect(manualWhileScheduled.stderr).toMatch(
        new RegExp(`another sweep of this checkout is open \\(gates/${scheduledSweepRunId(checkoutId, name, env().namespace)}`),
      );
    });

    test('unpause unpauses the schedule', () => {
      const { unpaused, pausedAfterUnpause } = results();
      expect(unpaused.stdout).toMatch(/unpaused schedule/);
      expect(pausedAfterUnpause).toBe(false);
    });

    test('the scheduled sweep carries its parameters as static details', () => {
      const { name, details, checkoutId } = results();
      expect(details).toContain(`| checkout | checkout ${checkoutId} |`);
      expect(details).toMatch(/\| auto-resume \| yes \|/);
      expect(details).toContain(`| schedule | ${name} (every 24h, overlap skip) |`);
    });

    test('create, pause and delete --json print the schedule-changed shape', () => {
      const { name, createdJson, pausedJson, deletedJson, checkout } = results();
      expect([createdJson, pausedJson, deletedJson].map((run) => run.exitCode)).toEqual([0, 0, 0]);
      expect(expectShape(String(createdJson.stdout), 'schedule-changed')).toEqual({
        shape: 'schedule-changed',
        version: 1,
        action: 'created',
        name: `${name}-weekly`,
        scheduleId: `gates-${name}-weekly`,
        checkout,
        spec: 'cron 0 3 * * 1',
        overlap: 'buffer-one',
        paused: true,
      });
      expect(expectShape(String(pausedJson.stdout), 'schedule-changed')).toMatchObject({ action: 'paused', name: `${name}-weekly` });
      expect(expectShape(String(deletedJson.stdout), 'schedule-changed')).toMatchObject({ action: 'deleted', name: `${name}-weekly` });
    });

    test('after delete, a trigger exits 1 saying there is no such schedule', () => {
      const { name, deleted, triggerAfterDelete } = results();
      expect(expectShape(String(deleted.stdout), 'schedule-changed')).toMatchObject({ action: 'deleted', name, scheduleId: `gates-${name}` });
      expect(triggerAfterDelete.exitCode).toBe(1);
      expect(triggerAfterDelete.stderr).toMatch(new RegExp(`no schedule ${name}`));
    });
  });
});
