import { bundleWorkflowCode } from '@temporalio/worker';
import { copyFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { packageRoot } from '../../src/paths.js';
import { quotaGateId } from '../../src/runs/workflow-ids.js';
import { quotaGate, quotaStateQuery } from '../../src/workflows/quota-gate.js';
import { TASK_QUEUE } from '../../src/search-attributes.js';
import { runCli } from '../helpers/cli.js';
import { scratch } from '../helpers/fake.js';
import { expectShape } from '../helpers/json-shape.js';
import { useDevServer } from '../helpers/servers.js';
import { testRelease, testWorker } from '../helpers/temporal.js';

const { env, address } = useDevServer();

const silent = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} } as never;

/** A test-only workflow module bundled to a file, as another release's dist/workflow-bundle.js would be. */
async function bundleFile(workflowsPath: string): Promise<string> {
  const { code } = await bundleWorkflowCode({ workflowsPath, logger: silent });
  const file = join(await scratch(), 'workflow-bundle.js');
  await writeFile(file, code);
  return file;
}

/** `commonplace upgrade check …` (the built bin/commonplace.js and its dist/workflow-bundle.js) against the file's server. */
const check = (...args: string[]) => runCli(['upgrade', 'check', ...args], { env: { TEMPORAL_ADDRESS: address(), NO_COLOR: '1' } });

interface Checked {
  release: string | null;
  openRuns: number | null;
  otherCode?: { release: string; runs: number }[];
  recordedHistories: number | null;
  replays: boolean;
  failures: { kind: string; workflowId: string; file?: string; mismatch: string; began: string }[];
}

/** The release `npm run build` recorded for the installed workflow code. */
const installedRelease = async () => (JSON.parse(await readFile(join(packageRoot(), 'dist', 'workflow-bundle.json'), 'utf8')) as { release: string }).release;

test("an open run replays on the installed code (another application's run beside it left alone) and is named by the release it began on, other code than the installed; upgrade check names it with its first mismatching command against a bundle whose workflow issues another command", async () => {
  const account = `claude/upgrade-check-${process.pid}`;
  const workflowId = quotaGateId(account);
  const worker = await testWorker(env(), { stateDir: join(await scratch(), 'state') });
  // The gate's first workflow task done (it answers a query once it ran), then no worker: the run stays open, as before an upgrade.
  await worker.runUntil(async () => {
    const handle = await env().client.workflow.start(quotaGate, { taskQueue: TASK_QUEUE, workflowId, args: [{ account }] });
    await handle.query(quotaStateQuery);
  });

  // Another application's run on the same namespace is not the project's to check.
  await env().client.workflow.start('otherApplicationWorkflow', { taskQueue: 'other-application', workflowId: `other/${process.pid}` });

  const installed = await check('--json');
  expect(installed.exitCode).toBe(0);
  const fine = expectShape(String(installed.stdout), 'upgrade-check') as unknown as Checked;
  // The run began on the test bundle's code (its memo; the test worker's build ID), which is not the installed code.
  expect(fine).toMatchObject({ release: await installedRelease(), openRuns: 1, recordedHistories: null, replays: true, failures: [] });
  expect(fine.otherCode).toEqual([{ release: testRelease(), runs: 1 }]);
  const said = await check();
  expect(said.exitCode).toBe(0);
  const [first, second] = String(said.stdout).split('\n');
  expect(first!.endsWith(` against the installed workflow code (dist/workflow-bundle.js), release ${await installedRelease()}`)).toBe(true);
  expect(second).toBe(`  1 open run began on other code: ${testRelease()} (1)`);

  const changed = await bundleFile(join(packageRoot(), 'test', 'fixtures', 'upgrade', 'changed-quota-gate.ts'));
  const broken = await check('--bundle', changed, '--json');
  expect(broken.exitCode).toBe(1);
  const named = expectShape(String(broken.stdout), 'upgrade-check') as unknown as Checked;
  // A bundle with no manifest beside it: its release is unknown, and each run is counted by the release it began on.
  expect(named).toMatchObject({ release: null, openRuns: 1, replays: false, otherCode: [{ release: testRelease(), runs: 1 }] });
  expect(named.failures).toEqual([
    expect.objectContaining({
      kind: 'open',
      workflowId,
      began: testRelease(),
      mismatch: expect.stringMatching(/Nondeterminism error: .*(Timer|StartTimer|ModifyWorkflowProperties|UpsertWorkflowMemo)/i),
    }),
  ]);

  const text = await check('--bundle', changed);
  expect(text.exitCode).toBe(1);
  expect(String(text.stdout)).toMatch(new RegExp(`would not replay: ${workflowId} \\(run [^,]+, began on ${testRelease().replace('+', '\\+')}\\): `));
  expect(String(text.stdout)).toContain('1 would not replay: restart no worker on this code');
});

test('a recorded history of an older workflow shape is named by upgrade check --histories, with its file, and replays on the installed code', async () => {
  const dir = await scratch();
  // A recorded probe of this release (its start event carries the release: the boundary refuses it otherwise, boundary.test.ts).
  await copyFile(join(packageRoot(), 'test', 'histories', 'probe-completed.json'), join(dir, 'probe-completed.json'));
  await copyFile(join(packageRoot(), 'test', 'histories', 'workflow-ids.map'), join(dir, 'workflow-ids.map'));

  const installed = await check('--histories', dir, '--no-open-runs', '--json');
  expect(installed.exitCode).toBe(0);
  expect(expectShape(String(installed.stdout), 'upgrade-check')).toMatchObject({ openRuns: null, recordedHistories: 1, replays: true, failures: [] });

  // The probe as a later release might change it: a timer before its first activity.
  const changed = await bundleFile(join(packageRoot(), 'test', 'fixtures', 'replay', 'changed-workflows.ts'));
  const broken = await check('--histories', dir, '--no-open-runs', '--bundle', changed, '--json');
  expect(broken.exitCode).toBe(1);
  const named = expectShape(String(broken.stdout), 'upgrade-check') as unknown as Checked;
  expect(named.failures).toEqual([
    expect.objectContaining({ kind: 'recorded', file: 'probe-completed.json', mismatch: expect.stringContaining('Nondeterminism error') }),
  ]);
});

test('upgrade check refuses a --histories directory that is not there in one line naming it', async () => {
  const missing = join(await scratch(), 'no-such-histories');
  const result = await check('--histories', missing, '--no-open-runs');
  expect(result.exitCode).toBe(1);
  expect(String(result.stderr).trim()).toBe(`commonplace: --histories ${missing}: no such directory`);
});

test('upgrade check refuses a --bundle file that is not there in one line naming it', async () => {
  const missing = join(await scratch(), 'workflow-bundle.js');
  const result = await check('--bundle', missing, '--no-open-runs', '--histories', join(packageRoot(), 'test', 'histories'));
  expect(result.exitCode).toBe(1);
  expect(String(result.stderr).trim()).toBe(
    `commonplace: --bundle ${missing}: no such file (a workflow bundle, as \`npm run build\` writes dist/workflow-bundle.js)`,
  );
});
