import { join } from 'node:path';
import { appendFile, readdir, writeFile } from 'node:fs/promises';
import { runCli, startCli } from '../helpers/cli.js';
import { scratch, waitFor } from '../helpers/fake.js';
import { expectShape } from '../helpers/json-shape.js';
import { computedOnce } from '../helpers/once.js';
import { useDevServerWithCliWorker } from '../helpers/servers.js';
import { compareDir, compareFixture, CRITERIA, DISPUTED, readRouteVerdicts, readSample, starts } from './helpers.js';

const { address } = useDevServerWithCliWorker();

describe('commonplace review compare', () => {
  const results = computedOnce(async () => {
    // The strict route's first launch on the disputed gate hits a usage limit: the run stops, and resumes by the printed command.
    const fixture = await compareFixture({
      strict: [
        { match: `^criterion = ${DISPUTED}$`, attempts: [{ usageLimit: 'Claude AI usage limit reached|1767240000' }, { review: 'fail' }] },
        { attempts: [{ review: 'pass' }] },
      ],
    });
    const criteria = CRITERIA.flatMap((glob) => ['--criteria', glob]);
    const args = fixture.command('lenient:pair,strict', 6, 9, '--per-criterion-min', '1', '--concurrency', '1', ...criteria);
    const cliEnv = { TEMPORAL_ADDRESS: address() };
    const stopped = await runCli(args, { env: cliEnv });
    const runId = /compare run (CMP-\S+) stopped/.exec(String(stopped.stdout))?.[1] ?? 'unknown';
    const resumed = await runCli(['review', 'compare', '--resume', runId, '--kb', fixture.checkout], { env: cliEnv });
    const launchesAfterResume = await fixture.launches();
    const again = await runCli(args, { env: cliEnv });
    const againJson = await runCli([...args, '--json'], { env: cliEnv });
    const inspected = await runCli(['review', 'inspect', runId, '--kb', fixture.checkout], { env: cliEnv });
    const inspectedJson = await runCli(['review', 'inspect', `compare/${runId}`, '--kb', fixture.checkout, '--json'], { env: cliEnv });
    return { stopped, resumed, again, inspected, againJson, inspectedJson, fixture, runId, launchesAfterResume };
  }, 300_000);

  test('a usage limit stops the run with exit 2 and names the one command that resumes it', () => {
    const { stopped, runId } = results();
    expect(stopped.exitCode).toBe(2);
    expect(stopped.stdout).toMatch(/compare run CMP-\S+ stopped: usage-limit/);
    expect(stopped.stdout).toContain(`review compare --resume ${runId}`);
  });

  test("the resume finishes the run and prints each route, the spend and the report's paths", async () => {
    const { resumed, fixture, runId, launchesAfterResume } = results();
    expect(resumed.exitCode).toBe(0);
    expect(resumed.stdout).toMatch(new RegExp(`compare run ${runId} completed: 6 pairs under 2 routes`));
    expect(resumed.stdout).toMatch(/lenient:pair +6 of 6 verdicts kept/);
    expect(resumed.stdout).toMatch(/strict:pair +6 of 6 verdicts kept/);
    expect(resumed.stdout).toMatch(new RegExp(`report +\\S*kb/reports/state/review/compare/${runId}/report\\.md`));
    const sample = await readSample(fixture.checkout, runId);
    // One launch per pair and route, and one more: the launch the usage limit refused.
    expect(launchesAfterResume).toBe(2 * sample.size + 1);
    expect(await readRouteVerdicts(fixture.checkout, runId, 'strict_pair.jsonl')).toHaveLength(sample.size);
  });

  test('the same command after the run completed prints its summary again and launches nothing', async () => {
    const { again, againJson, fixture, runId, launchesAfterResume } = results();
    expect(again.exitCode).toBe(0);
    expect(again.stdout).toMatch(new RegExp(`compare run ${runId} completed`));
    expect(await fixture.launches()).toBe(launchesAfterResume);
    expect(expectShape(String(againJson.stdout), 'run-outcome')).toMatchObject({ workflowId: `compare/${runId}`, status: 'completed', exitCode: 0 });
  });

  test("review inspect shows a closed compare run's routes, the report's overall lines and its paths", () => {
    const { inspected, inspectedJson, runId } = results();
    expect(inspected.exitCode).toBe(0);
    expect(inspected.stdout).toMatch(new RegExp(`compare run ${runId} \\(compare/${runId}\\): completed, a sample of 6 pairs`));
    expect(inspected.stdout).toMatch(/strict:pair +6 of 6 verdicts kept/);
    expect(inspected.stdout).toMatch(/strict:pair: 6 verdicts, .* per pair/);
    expect(inspected.stdout).toMatch(new RegExp(`report +\\S*kb/reports/state/review/compare/${runId}/report\\.md`));
    const document = expectShape(String(inspectedJson.stdout), 'compare-inspect');
    expect(document).toMatchObject({ runId, status: 'completed', sampleSize: 6 });
  });

  test.each([
    { name: 'one route alone', args: ['--routes', 'lenient'], message: /a comparison needs two or more routes/ },
    { name: 'a route named twice', args: ['--routes', 'lenient,lenient:pair'], message: /route lenient:pair is named twice/ },
    { name: 'a bad grouping', args: ['--routes', 'lenient:pairs,strict'], message: /grouping `pairs` must be pair or bundle/ },
    {
      name: 'a reference that is no route',
      args: ['--routes', 'lenient,strict', '--reference', 'codex'],
      message: /--reference codex:pair is not one of --routes/,
    },
    { name: 'an unknown profile', args: ['--routes', 'lenient,nobody'], message: /route nobody:pair: .*nobody/ },
    { name: 'a size of zero', args: ['--routes', 'lenient,strict', '--size', '0'], message: /--size must be a positive whole number/ },
  ])('refuses $name in one line, exit 1, before anything starts', async ({ args, message }) => {
    const { fixture } = results();
    const run = await runCli(['review', 'compare', '--kb', fixture.checkout, '--profiles', fixture.profilesFile, ...args], {
      env: { TEMPORAL_ADDRESS: address() },
    });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toMatch(message);
    expect(String(run.stderr).trim().split('\n').length).toBeLessThanOrEqual(2);
  });
});

describe('commonplace review compare under a spend cap', () => {
  test('stops before the launch that would pass --max-cost, names the resume with a higher cap, and the resume pays for no pair twice', async () => {
    // Every launch of both routes reports one cent.
    const fixture = await compareFixture({
      lenient: [{ attempts: [{ review: 'pass', costUsd: 0.01 }] }],
      strict: [{ attempts: [{ review: 'fail', costUsd: 0.01 }] }],
    });
    const cliEnv = { TEMPORAL_ADDRESS: address() };
    const args = fixture.command('lenient,strict', 4, 2, '--concurrency', '1', '--max-cost', '0.05', ...CRITERIA.flatMap((glob) => ['--criteria', glob]));
    const capped = await runCli(args, { env: cliEnv });
    expect(capped.exitCode).toBe(2);
    expect(capped.stdout).toMatch(/compare run CMP-\S+ stopped: spend-limit/);
    const runId = /compare run (CMP-\S+) stopped/.exec(String(capped.stdout))?.[1] ?? 'unknown';
    expect(capped.stdout).toMatch(new RegExp(`review compare --resume ${runId} --max-cost \\S+`));
    expect(await fixture.launches()).toBeLessThanOrEqual(5);
    const resumed = await runCli(['review', 'compare', '--resume', runId, '--max-cost', '1', '--kb', fixture.checkout], { env: cliEnv });
    expect(resumed.exitCode).toBe(0);
    expect(resumed.stdout).toMatch(/cost +\$0\.08/);
    expect(await fixture.launches()).toBe(8);
  }, 180_000);
});

describe('commonplace review cancel of a compare run', () => {
  test('ends an open compare run by its run ID: it closes cancelled and its command exits 1', async () => {
    const dir = await scratch();
    // The lenient route's launches wait for a file that never comes: the run stays open until it is cancelled.
    const fixture = await compareFixture({ lenient: [{ attempts: [{ review: 'pass', waitForFile: join(dir, 'never') }] }] });
    const cliEnv = { TEMPORAL_ADDRESS: address() };
    const running = startCli(fixture.command('lenient,strict', 2, 4, '--criteria', 'sentence/*'), { env: cliEnv });
    await waitFor('a launch of the lenient route to start', async () => (await starts(fixture.ledgers.lenient)).length > 0, 120_000);
    // The run's directory is named by its run ID.
    const [runId] = await readdir(compareDir(fixture.checkout, '.'));
    expect(runId).toMatch(/^CMP-/);
    const cancelled = await runCli(['review', 'cancel', runId!, '--kb', fixture.checkout], { env: cliEnv });
    expect(cancelled.exitCode).toBe(0);
    expect(cancelled.stdout).toMatch(new RegExp(`compare run ${runId}: .*cancelled`));
    expect((await running).exitCode).toBe(1);
  }, 180_000);
});

describe('commonplace review acknowledge of a compare run', () => {
  test('a KB change while a launch runs stops the run for review acknowledge, which lets it go on to its report', async () => {
    const dir = await scratch();
    const release = join(dir, 'release');
    // The lenient route's first launch is held until the KB has changed under it.
    const fixture = await compareFixture({
      lenient: [
        { match: '^criterion = sentence/stock-phrases$', attempts: [{ review: 'pass', waitForFile: release }, { review: 'pass' }] },
        { attempts: [{ review: 'pass' }] },
      ],
    });
    const cliEnv = { TEMPORAL_ADDRESS: address() };
    const running = startCli(fixture.command('lenient,strict', 3, 5, '--criteria', 'sentence/*', '--concurrency', '1'), { env: cliEnv });
    await waitFor(
      'the held launch to start',
      async () => (await starts(fixture.ledgers.lenient)).length > 0 && (await readdir(compareDir(fixture.checkout, '.'))).length > 0,
      120_000,
    );
    await appendFile(join(fixture.checkout, 'kb', 'types', 'README.md'), '\nAn edit made while a launch ran.\n');
    await writeFile(release, '');
    const stopped = await running;
    expect(stopped.exitCode).toBe(2);
    expect(stopped.stdout).toMatch(/stopped: checkout-changed/);
    const [runId] = await readdir(compareDir(fixture.checkout, '.'));
    expect(stopped.stdout).toContain(`review acknowledge ${runId!}`);
    const acknowledged = await runCli(['review', 'acknowledge', runId!, '--kb', fixture.checkout], { env: cliEnv });
    expect(acknowledged.exitCode).toBe(0);
    expect(acknowledged.stdout).toMatch(new RegExp(`compare run ${runId!} completed: 3 pairs under 2 routes`));
  }, 240_000);
});
