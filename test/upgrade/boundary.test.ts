/**
 * The compatibility boundary of release 0.2.0 (src/release.ts, docs/upgrading.md): a run begun before it
 * — a recorded 0.1.0 history, a run started without the release as a 0.1.0 client starts one — is refused
 * in one line naming the run, its release and the way out, by the workers and by `upgrade check`; every
 * run begun now carries the release, its children too.
 */
import { Client } from '@temporalio/client';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { Worker } from '@temporalio/worker';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectClient } from '../../src/client/shared/connection.js';
import { packageRoot } from '../../src/paths.js';
import { RELEASE, RELEASE_MEMO, refusalIn, refusalOf } from '../../src/release.js';
import { ADDRESS_MEMO } from '../../src/runs/run-commands.js';
import { installedRelease } from '../../src/workflow-code.js';
import type { SweepInput, SweepSummary } from '../../src/review/sweep-types.js';
import { TASK_QUEUE } from '../../src/search-attributes.js';
import { runCli, startCli } from '../helpers/cli.js';
import { fakeScenario, scratch, waitFor } from '../helpers/fake.js';
import { expectShape } from '../helpers/json-shape.js';
import { corpusCopy, someNotes } from '../helpers/kb.js';
import { fakeProfilesFile } from '../helpers/probe.js';
import { useDevServer } from '../helpers/servers.js';
import { testRelease, testWorker, uniqueId, workflowBundlePath } from '../helpers/temporal.js';

const { env, address } = useDevServer();

/** A run of 0.1.0, as test/histories recorded it then: its start event names no release. */
const sampleDir = join(packageRoot(), 'test', 'fixtures', 'upgrade', 'release-0.1.0');
const sampleId = (JSON.parse(readFileSync(join(sampleDir, 'workflow-ids.map'), 'utf8')) as Record<string, string>)['gates-completed.json']!;
const sample = () => historyFromJSON(JSON.parse(readFileSync(join(sampleDir, 'gates-completed.json'), 'utf8')));

const check = (...args: string[]) => runCli(['upgrade', 'check', ...args], { env: { TEMPORAL_ADDRESS: address(), NO_COLOR: '1' } });

interface Checked {
  openRuns: number | null;
  recordedHistories: number | null;
  replays: boolean;
  failures: { kind: string; workflowId: string; runId: string; file?: string; mismatch: string; release?: string }[];
  schedules?: { scheduleId: string; release: string; line: string }[];
}

/** A paused hourly schedule of a sweep (its input is never read here). */
const scheduleOf = (scheduleId: string) => ({
  scheduleId,
  spec: { intervals: [{ every: '1h' }] },
  action: { type: 'startWorkflow' as const, workflowType: 'gateSweep', taskQueue: TASK_QUEUE, args: [{}] },
  state: { paused: true },
});

/** The failure of the run's first failed workflow task, once its history holds one: its message and stack. */
async function failedTask(client: Client, workflowId: string): Promise<{ message: string; stack: string }> {
  let failure: { message?: string | null; stackTrace?: string | null } | null | undefined;
  await waitFor(
    `a failed workflow task of ${workflowId}`,
    async () => {
      const { events } = await client.workflow.getHandle(workflowId).fetchHistory();
      failure = events?.find((event) => event.workflowTaskFailedEventAttributes)?.workflowTaskFailedEventAttributes?.failure;
      return failure !== undefined;
    },
    90_000,
  );
  return { message: failure?.message ?? '', stack: failure?.stackTrace ?? '' };
}

test('a recorded 0.1.0 history replayed on the current code fails with the one-line refusal, and upgrade check --histories names it with that line', async () => {
  const line = refusalOf({ workflowType: 'gateSweep', workflowId: sampleId, memo: undefined })!;
  expect(line).toBe(
    `run ${sampleId} began on release 0.1.0, which release 0.2.0 does not run (its oldest is 0.2.0): finish it on 0.1.0's workers, or end it with \`commonplace review cancel ${sampleId}\``,
  );
  const replayed = await Worker.runReplayHistory({ workflowBundle: { codePath: workflowBundlePath } }, sample(), sampleId).then(
    () => undefined,
    (error: Error) => error,
  );
  expect(replayed).toBeInstanceOf(Error);
  expect(refusalIn(replayed!.message)).toBe(line);

  const text = await check('--histories', sampleDir, '--no-open-runs');
  expect(text.exitCode).toBe(1);
  expect(String(text.stdout).split('\n')).toContain(`  gates-completed.json: ${line}`);
  const json = await check('--histories', sampleDir, '--no-open-runs', '--json');
  expect(json.exitCode).toBe(1);
  const named = expectShape(String(json.stdout), 'upgrade-check') as unknown as Checked;
  expect(named).toMatchObject({ recordedHistories: 1, replays: false });
  expect(named.failures).toEqual([
    expect.objectContaining({ kind: 'recorded', file: 'gates-completed.json', workflowId: sampleId, mismatch: line, release: '0.1.0' }),
  ]);
});

test('a run started without the release, as a 0.1.0 client starts one: its workflow task fails with the one line, the worker logs it once in that line, and upgrade check names it with it (and a schedule of 0.1.0) and exits 1', async () => {
  // A client without the release stamp, as 0.1.0's CLI was.
  const old = new Client({ connection: env().client.connection, namespace: env().namespace ?? 'default' });
  const sweepId = `gates/${uniqueId('GS-old').replace(/\//g, '-')}`;
  const analysisId = `analysis/a1b2c3d4/AAS-2030-02-0${process.pid % 9}-old-01`;
  // Neither input is read: the run is refused before its code runs.
  await old.workflow.start('gateSweep', { taskQueue: TASK_QUEUE, workflowId: sweepId, args: [{}] });
  await old.workflow.start('analysis', { taskQueue: TASK_QUEUE, workflowId: analysisId, args: [{}] });
  const oldSchedule = `gates-old-${process.pid}`;
  await old.schedule.create(scheduleOf(oldSchedule));
  const scheduleLine = `schedule ${oldSchedule} was created on release 0.1.0: release 0.2.0 refuses every run it starts; delete it and create it again (\`commonplace review schedule delete old-${process.pid}\`, then \`commonplace review schedule create old-${process.pid}\` with its options)`;
  const sweepLine = `run ${sweepId} began on release 0.1.0, which release 0.2.0 does not run (its oldest is 0.2.0): finish it on 0.1.0's workers, or end it with \`commonplace review cancel ${sweepId}\``;
  const analysisLine = `run ${analysisId} began on release 0.1.0, which release 0.2.0 does not run (its oldest is 0.2.0): finish it on 0.1.0's workers, or end it with \`commonplace analysis reset AAS-2030-02-0${process.pid % 9}-old-01\``;

  // Before any worker serves them, upgrade check names both from their memo.
  const before = await check('--json');
  expect(before.exitCode).toBe(1);
  const named = expectShape(String(before.stdout), 'upgrade-check') as unknown as Checked;
  expect(named).toMatchObject({ openRuns: 2, replays: false, schedules: [{ scheduleId: oldSchedule, release: '0.1.0', line: scheduleLine }] });
  expect(
    named.failures
      .map(({ kind, workflowId, mismatch, release }) => ({ kind, workflowId, mismatch, release }))
      .sort((a, b) => a.workflowId.localeCompare(b.workflowId)),
  ).toEqual([
    { kind: 'open', workflowId: analysisId, mismatch: analysisLine, release: '0.1.0' },
    { kind: 'open', workflowId: sweepId, mismatch: sweepLine, release: '0.1.0' },
  ]);
  const text = await check();
  expect(text.exitCode).toBe(1);
  const lines = String(text.stdout).split('\n');
  expect(lines).toContain(`  ${sweepLine}`);
  expect(lines).toContain(`  ${analysisLine}`);
  expect(lines).toContain(`  ${scheduleLine}`);
  await old.schedule.getHandle(oldSchedule).delete();

  // The real worker: each run's task fails with the line, which its log says once, in one line.
  const worker = startCli(['worker', '--state', await scratch()], { env: { TEMPORAL_ADDRESS: address(), NO_COLOR: '1' } });
  let said = '';
  worker.stderr?.on('data', (chunk: Buffer) => (said += chunk.toString()));
  try {
    // The history names no path of the worker's host: the stack is the line.
    expect(await failedTask(env().client, sweepId)).toEqual({ message: sweepLine, stack: `Error: ${sweepLine}` });
    expect(await failedTask(env().client, analysisId)).toEqual({ message: analysisLine, stack: `Error: ${analysisLine}` });
    await waitFor('the worker to log both refusals', async () => said.includes(sweepLine) && said.includes(analysisLine), 30_000);
  } finally {
    worker.kill('SIGINT');
    await worker;
  }
  const logged = said.split('\n').filter((line) => line.includes('began on release'));
  expect(logged.sort()).toEqual([`commonplace: ${analysisLine}`, `commonplace: ${sweepLine}`]);
  expect(said).not.toContain('Failing workflow task');
  // The runs stay open, for a worker of their release or their operator.
  expect((await env().client.workflow.getHandle(sweepId).describe()).status.name).toBe('RUNNING');
  await Promise.all([sweepId, analysisId].map((id) => env().client.workflow.getHandle(id).terminate('the test is over')));
});

test("a run started through the CLI's connection carries the installed code's release in its memo; its gate batches and its continued run carry the release of the worker's code, which every workflow task of theirs names as its build ID; a schedule it creates carries the release too; the runs replay on the current code", async () => {
  const checkout = await corpusCopy();
  const dir = await scratch();
  const { env: fakeEnv } = await fakeScenario(dir, [{ attempts: [{ review: 'pass' }] }]);
  const profilesFile = await fakeProfilesFile(dir, { fake: { harness: 'fake', timeout: '1m' } });
  const runId = uniqueId('GS-release').replace(/\//g, '-');
  // Several batches, and a history budget that continues the sweep as new after the first.
  const input: SweepInput = {
    checkout,
    runId,
    notes: await someNotes(1),
    gates: ['frontmatter/*'],
    criteria: ['gates'],
    grouping: 'pair',
    profile: 'fake',
    concurrency: 1,
    batchSize: 2,
    autoResume: false,
    profilesFile,
    env: fakeEnv,
    historyBudget: { sweep: 1 },
  };
  const saved = process.env.TEMPORAL_ADDRESS;
  process.env.TEMPORAL_ADDRESS = address();
  let client: Client;
  try {
    client = await connectClient();
  } finally {
    if (saved === undefined) delete process.env.TEMPORAL_ADDRESS;
    else process.env.TEMPORAL_ADDRESS = saved;
  }
  const worker = await testWorker(env(), { stateDir: join(dir, 'state') });
  const started = await client.workflow.start('gateSweep', {
    taskQueue: TASK_QUEUE,
    workflowId: `gates/${runId}`,
    args: [input],
    memo: { identity: "the start site's" },
  });
  const summary = (await worker.runUntil(started.result())) as SweepSummary;
  expect(summary.batches).toBeGreaterThanOrEqual(2);
  // The CLI's client names the code it has installed (here the sources); the test worker runs the test bundle, another code.
  const installed = await installedRelease();
  expect(installed).toMatch(new RegExp(`^${RELEASE.replace(/\./g, '\\.')}\\+[0-9a-f]{64}$`));
  expect(installed).not.toBe(testRelease());
  const first = await env().client.workflow.getHandle(`gates/${runId}`, started.firstExecutionRunId).describe();
  expect(first.memo).toEqual({ identity: "the start site's", [RELEASE_MEMO]: installed, [ADDRESS_MEMO]: address() });
  const sweep = await env().client.workflow.getHandle(`gates/${runId}`).describe();
  expect(sweep.runId).not.toBe(started.firstExecutionRunId);
  // The CLI's client was given an address (TEMPORAL_ADDRESS): the run carries it for its Web UI commands, continued and in its batches.
  expect(sweep.memo).toEqual({ identity: "the start site's", [RELEASE_MEMO]: testRelease(), [ADDRESS_MEMO]: address() });
  for (const workflowId of [`gates/${runId}`, `gates/${runId}/batch-1`, `gates/${runId}/batch-2`]) {
    const described = await env().client.workflow.getHandle(workflowId).describe();
    expect([workflowId, described.memo?.[RELEASE_MEMO], described.memo?.[ADDRESS_MEMO]]).toEqual([workflowId, testRelease(), address()]);
    const history = await env().client.workflow.getHandle(workflowId).fetchHistory();
    // Each workflow task names the code that ran it: the worker's build ID in the project's deployment.
    const tasks = (history.events ?? []).flatMap((event) => (event.workflowTaskCompletedEventAttributes ? [event.workflowTaskCompletedEventAttributes] : []));
    expect(tasks.length).toBeGreaterThan(0);
    expect(new Set(tasks.map((task) => `${task.workerDeploymentName} ${task.workerVersion?.buildId}`))).toEqual(new Set([`commonplace ${testRelease()}`]));
    await expect(Worker.runReplayHistory({ workflowBundle: { codePath: workflowBundlePath } }, history, workflowId)).resolves.toBeUndefined();
  }
  const schedule = await client.schedule.create(scheduleOf(`gates-new-${process.pid}`));
  expect((await schedule.describe()).action.memo?.[RELEASE_MEMO]).toBe(installed);
  const checked = expectShape(String((await check('--json')).stdout), 'upgrade-check') as unknown as Checked;
  expect(checked.schedules).toEqual([]);
  await schedule.delete();
});
