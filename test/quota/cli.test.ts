import { join } from 'node:path';
import { createQuotaActivities } from '../../src/activities/quota/quota.js';
import { quotaGateId } from '../../src/runs/workflow-ids.js';
import { quotaStateQuery } from '../../src/workflows/quota-gate.js';
import { runCli } from '../helpers/cli.js';
import { expectShape } from '../helpers/json-shape.js';
import { scratch } from '../helpers/fake.js';
import { useDevServer } from '../helpers/servers.js';
import { testWorker } from '../helpers/temporal.js';

const { env, address } = useDevServer();

/** Runs `commonplace quota …` (the built bin/commonplace.js; `npm run build` first) against the file's server. */
const quota = (...args: string[]) => runCli(['quota', ...args], { env: { TEMPORAL_ADDRESS: address(), NO_COLOR: '1' } });

async function until<T>(read: () => Promise<T>, predicate: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 180_000;
  for (;;) {
    const value = await read();
    if (predicate(value) || Date.now() > deadline) return value;
    await new Promise((done) => setTimeout(done, 200));
  }
}

test('commonplace quota lists each gate with its state (as quota-gates with --json), and quota open reopens a closed one by hand (quota-opened with --json)', async () => {
  const account = `claude/cli-test-${process.pid}`;
  const resetAt = new Date(Date.now() + 3 * 3600_000).toISOString();
  const activities = createQuotaActivities({ client: () => env().client });
  const worker = await testWorker(env(), { stateDir: join(await scratch(), 'state') });
  await worker.runUntil(async () => {
    await activities.quotaLimit({
      account,
      workflowId: 'gates/no-such-run',
      searchAttributes: true,
      report: { reason: 'usage limit reached', launchId: 'gates/no-such-run/pair/1', resetAt },
    });

    const listed = await until(
      () => quota(),
      (run) => String(run.stdout).includes(`${account}  closed until ${resetAt}`),
    );
    expect(listed.exitCode).toBe(0);
    expect(String(listed.stdout)).toContain(`${account}  closed until ${resetAt}`);
    const json = expectShape(String((await quota('--json')).stdout), 'quota-gates') as unknown as {
      gates: { account: string; workflowId: string; quota: { status: string; resetAt: string } }[];
    };
    expect(json.gates.find((row) => row.account === account)).toEqual({
      account,
      workflowId: quotaGateId(account),
      quota: expect.objectContaining({ status: 'closed-until', resetAt }),
    });

    const opened = await quota('open', account);
    expect(opened.exitCode).toBe(0);
    expect(String(opened.stdout)).toContain(`opened the quota gate of ${account}`);
    const view = await until(
      () => env().client.workflow.getHandle(quotaGateId(account)).query(quotaStateQuery),
      (state) => state.state.status === 'open',
    );
    expect(view.state).toMatchObject({ status: 'open', openedBy: 'operator' });
    expect(
      String(
        (
          await until(
            () => quota(),
            (run) => String(run.stdout).includes(`${account}  open`),
          )
        ).stdout,
      ),
    ).toContain(`${account}  open`);

    const again = await quota('open', account, '--json');
    expect(again.exitCode).toBe(0);
    expect(expectShape(String(again.stdout), 'quota-opened')).toEqual({ shape: 'quota-opened', version: 1, account, workflowId: quotaGateId(account) });

    const unknown = await quota('open', 'claude/no-such-account');
    expect(unknown.exitCode).toBe(1);
    expect(String(unknown.stderr)).toContain('there is no quota gate for claude/no-such-account');
  });
});
