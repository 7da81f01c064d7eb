import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { runCli, startCli } from '../helpers/cli.js';
import { fakeScenario, scratch, waitFor } from '../helpers/fake.js';
import { corpusCopy, someNotes } from '../helpers/kb.js';
import { startDevEnvironment } from '../helpers/temporal.js';
import { editorRule, gitCorpus, NOTE, noteText, reviewsPass, runOf } from '../review-edit/helpers.js';

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

const usageLimit = { usageLimit: 'Claude AI usage limit reached|1767240000' };

/** The execution's status and its CommonplaceStatus search attribute. */
async function closedAs(workflowId: string): Promise<{ status: string; recorded: unknown }> {
  const described = await env.client.workflow.getHandle(workflowId).describe();
  return { status: described.status.name, recorded: described.typedSearchAttributes.getAll().find((pair) => pair.key.name === 'CommonplaceStatus')?.value };
}

describe('commonplace review cancel', () => {
  test('a stopped sweep is cancelled, closes CANCELLED and reads CommonplaceStatus=cancelled; cancelling it again says it is already closed', async () => {
    const checkout = await corpusCopy();
    const notes = await someNotes(1);
    const { scenario, ledger } = await fakeScenario(await scratch(), [{ attempts: [usageLimit] }]);
    const cliEnv = { TEMPORAL_ADDRESS: address, COMMONPLACE_FAKE_LEDGER: ledger };
    const stopped = await runCli(['review', 'run', 'gates', '--kb', checkout, '--profile', 'fake', '--scenario', scenario, '--gates', 'frontmatter/*', '--concurrency', '1', '--notes', notes[0]!], { env: cliEnv });
    expect(stopped.exitCode).toBe(2);
    const run = /--resume (GS-\S+)/.exec(String(stopped.stdout))?.[1] ?? '';
    expect(run).not.toBe('');

    const cancelled = await runCli(['review', 'cancel', run, '--grace', '60'], { env: cliEnv });
    expect(cancelled.stderr).toContain(`cancelling gates/${run}`);
    expect(cancelled.exitCode).toBe(0);
    expect(cancelled.stdout).toBe(`sweep ${run}: cancelled gates/${run}: it closed on the cancellation`);
    expect(await closedAs(`gates/${run}`)).toEqual({ status: 'CANCELLED', recorded: 'cancelled' });

    const again = await runCli(['review', 'cancel', run], { env: cliEnv });
    expect(again.exitCode).toBe(0);
    expect(again.stdout).toMatch(/was already closed \(cancelled\): nothing to end/);
  });

  test('a stopped edit run is cancelled by its run ID and reads CommonplaceStatus=cancelled', async () => {
    const checkout = await gitCorpus();
    const { scenario } = await fakeScenario(await scratch(), [editorRule({ edited: '', decision: 'no-edit' }), { match: '^criterion = prose/', attempts: [usageLimit] }, { attempts: [reviewsPass] }]);
    const { runId, workflowId } = runOf('full-pass', NOTE, await noteText(checkout));
    const cli = (...args: string[]) => runCli([...args, '--kb', checkout], { env: { TEMPORAL_ADDRESS: address }, cwd: checkout });
    const stopped = await cli('review', 'run', 'full-pass', NOTE, '--profile', 'fake', '--scenario', scenario, '--concurrency', '1');
    expect(stopped.exitCode).toBe(2);
    expect(stopped.stdout).toMatch(/stopped: usage-limit \(retry\)/);

    const cancelled = await cli('review', 'cancel', runId);
    expect(cancelled.exitCode).toBe(0);
    expect(cancelled.stdout).toBe(`full-pass ${runId}: cancelled ${workflowId}: it closed on the cancellation`);
    expect(await closedAs(workflowId)).toEqual({ status: 'CANCELLED', recorded: 'cancelled' });
  });

  test('a run that does not close within the grace period is terminated, and the command says so', async () => {
    const checkout = await corpusCopy();
    const notes = await someNotes(1);
    const { scenario, ledger } = await fakeScenario(await scratch(), [{ attempts: [{ hang: true }] }]);
    const cliEnv = { TEMPORAL_ADDRESS: address, COMMONPLACE_FAKE_LEDGER: ledger };
    const started = await runCli(['review', 'run', 'gates', '--kb', checkout, '--profile', 'fake', '--scenario', scenario, '--gates', 'frontmatter/*', '--concurrency', '1', '--notes', notes[0]!, '--detach'], { env: cliEnv });
    expect(started.exitCode).toBe(0);
    const run = /started gates\/(GS-\S+);/.exec(String(started.stderr))?.[1] ?? '';
    await waitFor('the sweep to be running', async () => (await closedAs(`gates/${run}`)).status === 'RUNNING');

    const ended = await runCli(['review', 'cancel', run, '--grace', '0'], { env: cliEnv });
    expect(ended.exitCode).toBe(0);
    expect(ended.stdout).toMatch(new RegExp(`^sweep ${run}: (terminated gates/${run}: it did not close within the 0 s grace period after the cancellation|cancelled gates/${run}: it closed on the cancellation)$`));
    expect(['TERMINATED', 'CANCELLED']).toContain((await closedAs(`gates/${run}`)).status);
  });

  test('a bad --grace is a usage error (exit 2), and an unknown run names what it looked for', async () => {
    const bad = await runCli(['review', 'cancel', 'GS-x', '--grace', 'soon'], { env: { TEMPORAL_ADDRESS: address } });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/--grace must be a number of seconds/);
    const checkout = await corpusCopy();
    const unknown = await runCli(['review', 'cancel', 'GS-nosuch', '--kb', checkout], { env: { TEMPORAL_ADDRESS: address } });
    expect(unknown.exitCode).toBe(1);
    expect(unknown.stderr).toMatch(/no sweep or editing run GS-nosuch: no workflow gates\/GS-nosuch/);
  });
});
