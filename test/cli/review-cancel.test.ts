import { runCli } from '../helpers/cli.js';
import { expectShape } from '../helpers/json-shape.js';
import { fakeScenario, readLedger, scratch, waitFor } from '../helpers/fake.js';
import { expectNoHarnessLeft } from '../helpers/harness-processes.js';
import { corpusCopy } from '../helpers/kb.js';
import { editorRule, gitCorpus, NOTE, noteText, reviewsPass, runOf } from '../review-edit/helpers.js';
import { useDevServerWithCliWorker } from '../helpers/servers.js';
import { fakeSweep } from '../helpers/sweep.js';
import { computedOnce } from '../helpers/once.js';

const { env, address } = useDevServerWithCliWorker();

const usageLimit = { usageLimit: 'Claude AI usage limit reached|1767240000' };

/** The execution's status and its CommonplaceStatus search attribute. */
async function closedAs(workflowId: string): Promise<{ status: string; recorded: unknown }> {
  const described = await env().client.workflow.getHandle(workflowId).describe();
  return { status: described.status.name, recorded: described.typedSearchAttributes.getAll().find((pair) => pair.key.name === 'CommonplaceStatus')?.value };
}

describe('commonplace review cancel', () => {
  describe('a stopped sweep, cancelled and then cancelled again', () => {
    const results = computedOnce(async () => {
      const sweep = await fakeSweep([{ attempts: [usageLimit] }]);
      const cliEnv = sweep.cliEnv(address());
      const stopped = await runCli(sweep.command({ concurrency: 1 }), { env: cliEnv });
      expect(stopped.exitCode).toBe(2);
      const run = /--resume (GS-\S+)/.exec(String(stopped.stdout))?.[1] ?? '';
      expect(run).not.toBe('');
      const cancelled = await runCli(['review', 'cancel', run, '--grace', '60'], { env: cliEnv });
      const closed = await closedAs(`gates/${run}`);
      const again = await runCli(['review', 'cancel', run], { env: cliEnv });
      const againJson = await runCli(['review', 'cancel', run, '--json'], { env: cliEnv });
      return { run, cancelled, closed, again, againJson };
    });

    test('cancel exits 0, saying the sweep closed on the cancellation', () => {
      const { run, cancelled } = results();
      expect(cancelled.stderr).toContain(`cancelling gates/${run}`);
      expect(cancelled.exitCode).toBe(0);
      expect(cancelled.stdout).toBe(`sweep ${run}: cancelled gates/${run}: it closed on the cancellation`);
    });

    test('the sweep closes CANCELLED and reads CommonplaceStatus=cancelled', () => {
      const { closed } = results();
      expect(closed).toEqual({ status: 'CANCELLED', recorded: 'cancelled' });
    });

    test('cancelling it again exits 0, saying it was already closed', () => {
      const { again } = results();
      expect(again.exitCode).toBe(0);
      expect(again.stdout).toMatch(/was already closed \(cancelled\): nothing to end/);
    });

    test('--json prints the run-ended shape with the status the run recorded', () => {
      const { run, againJson } = results();
      expect(againJson.exitCode).toBe(0);
      expect(expectShape(String(againJson.stdout), 'run-ended')).toMatchObject({
        run,
        workflowId: `gates/${run}`,
        how: 'already-closed',
        executionStatus: 'CANCELLED',
        commonplaceStatus: 'cancelled',
      });
    });
  });

  test('a stopped edit run is cancelled by its run ID and reads CommonplaceStatus=cancelled', async () => {
    const checkout = await gitCorpus();
    const { scenario } = await fakeScenario(await scratch(), [
      editorRule({ edited: '', decision: 'no-edit' }),
      { match: '^criterion = prose/', attempts: [usageLimit] },
      { attempts: [reviewsPass] },
    ]);
    const { runId, workflowId } = runOf('full-pass', NOTE, await noteText(checkout), checkout);
    const cli = (...args: string[]) => runCli([...args, '--kb', checkout], { env: { TEMPORAL_ADDRESS: address() }, cwd: checkout });
    const stopped = await cli('review', 'run', 'full-pass', NOTE, '--profile', 'fake', '--scenario', scenario, '--concurrency', '1');
    expect(stopped.exitCode).toBe(2);
    expect(stopped.stdout).toMatch(/stopped: usage-limit \(retry\)/);

    const cancelled = await cli('review', 'cancel', runId);
    expect(cancelled.exitCode).toBe(0);
    expect(cancelled.stdout).toBe(`full-pass ${runId}: cancelled ${workflowId}: it closed on the cancellation`);
    expect(await closedAs(workflowId)).toEqual({ status: 'CANCELLED', recorded: 'cancelled' });
  });

  test('cancel with a 0 s grace period ends a sweep whose launch hangs, saying whether it was cancelled or terminated', async () => {
    const sweep = await fakeSweep([{ attempts: [{ hang: true }] }]);
    const { ledger } = sweep;
    const cliEnv = sweep.cliEnv(address());
    const started = await runCli(sweep.command({ concurrency: 1 }, '--detach', '--json'), { env: cliEnv });
    expect(started.exitCode).toBe(0);
    const run = expectShape(String(started.stdout), 'sweep-started')['runId'] as string;
    expect(started.stderr).toContain(`started gates/${run};`);
    await waitFor('the sweep to be running', async () => (await closedAs(`gates/${run}`)).status === 'RUNNING');
    await waitFor('its launch to hang', async () => (await readLedger(ledger)).some((entry) => entry.event === 'hang'), 120_000);

    const ended = await runCli(['review', 'cancel', run, '--grace', '0', '--json'], { env: cliEnv });
    expect(ended.exitCode).toBe(0);
    const document = expectShape(String(ended.stdout), 'run-ended');
    expect(document['message']).toMatch(
      new RegExp(
        `^sweep ${run}: (terminated gates/${run}: it did not close within the 0 s grace period after the cancellation|cancelled gates/${run}: it closed on the cancellation)$`,
      ),
    );
    expect(document).toMatchObject({ how: expect.stringMatching(/^(terminated|cancelled)$/), graceSeconds: 0 });
    expect(['TERMINATED', 'CANCELLED']).toContain((await closedAs(`gates/${run}`)).status);
    await expectNoHarnessLeft(ledger); // terminated or cancelled, the run's try ends with it
  });

  test('a bad --grace is a usage error (exit 1)', async () => {
    const bad = await runCli(['review', 'cancel', 'GS-x', '--grace', 'soon'], { env: { TEMPORAL_ADDRESS: address() } });
    expect(bad.exitCode).toBe(1);
    expect(bad.stderr).toMatch(/--grace must be a number of seconds/);
  });

  test('an unknown run exits 1, naming the workflow it looked for', async () => {
    const checkout = await corpusCopy();
    const unknown = await runCli(['review', 'cancel', 'GS-nosuch', '--kb', checkout], { env: { TEMPORAL_ADDRESS: address() } });
    expect(unknown.exitCode).toBe(1);
    expect(unknown.stderr).toMatch(/no sweep or editing run GS-nosuch: no workflow gates\/GS-nosuch/);
  });
});
