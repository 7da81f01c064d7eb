import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.js';
import { expectShape } from '../helpers/json-shape.js';
import { ledgerStarts, fakeScenario, scratch } from '../helpers/fake.js';
import { useDevServerWithCliWorker } from '../helpers/servers.js';

const { env, address, workerState } = useDevServerWithCliWorker();

describe('commonplace probe', () => {
  describe('a probe that completes', () => {
    let ledger: string;
    let probe: Awaited<ReturnType<typeof runCli>>;
    let json: { workflowId: string; status: string; exitCode: number; result: { dir: string; outcome: { status: string } } };
    beforeAll(async () => {
      const attempts = [{ writeDeclared: 'probe ok\n', model: 'fake-model-7' }];
      const printed = await fakeScenario(await scratch(), [{ attempts }]);
      ledger = printed.ledger;
      probe = await runCli(['probe', '--profile', 'fake', '--scenario', printed.scenario], {
        env: { TEMPORAL_ADDRESS: address(), COMMONPLACE_FAKE_LEDGER: ledger },
      });
      const asJson = await fakeScenario(await scratch(), [{ attempts }]);
      const run = await runCli(['probe', '--profile', 'fake', '--scenario', asJson.scenario, '--json'], {
        env: { TEMPORAL_ADDRESS: address(), COMMONPLACE_FAKE_LEDGER: asJson.ledger },
      });
      json = expectShape(String(run.stdout), 'run-outcome') as unknown as typeof json;
    });

    test('runs its workflow on the dev server from the CLI and exits 0 without an error', () => {
      expect(probe.stderr).not.toMatch(/Error|at /);
      expect(probe.exitCode).toBe(0);
    });

    test('prints the outcome, the declared output with its size and digest, and the model', () => {
      const digest = createHash('sha256').update('probe ok\n').digest('hex');
      expect(probe.stdout).toMatch(/^probe probe\/fake\/\S+: profile fake \(fake\) — completed$/m);
      expect(probe.stdout).toContain(`output probe.md: 9 bytes, sha256 ${digest}`);
      expect(probe.stdout).toContain('model fake-model-7');
    });

    test('launches the harness once', async () => {
      expect(await ledgerStarts(ledger)).toHaveLength(1);
    });

    test('with --json prints a run-outcome document whose result is the probe, its directory holding the declared output', async () => {
      expect(json).toMatchObject({ status: 'completed', exitCode: 0, result: { outcome: { status: 'completed' } } });
      await expect(readFile(join(json.result.dir.replace(/^<state>/, workerState!()), 'probe.md'), 'utf8')).resolves.toBe('probe ok\n');
    });

    test('records the kind, the status and the profile as search attributes, and a summary naming the profile', async () => {
      const described = await env().client.workflow.getHandle(json.workflowId).describe();
      expect(described.typedSearchAttributes.getAll().map((pair) => [pair.key.name, pair.value])).toEqual(
        expect.arrayContaining([
          ['CommonplaceKind', 'probe'],
          ['CommonplaceStatus', 'completed'],
          ['CommonplaceProfile', 'fake'],
        ]),
      );
      expect(await described.staticSummary()).toBe('probe of worker profile fake');
      expect(await described.staticDetails()).toMatch(/\| profile \| fake \|/);
    });
  });

  describe('a probe whose launch hits a usage limit', () => {
    let probe: Awaited<ReturnType<typeof runCli>>;
    beforeAll(async () => {
      const { ledger, scenario } = await fakeScenario(await scratch(), [{ attempts: [{ usageLimit: 'Claude AI usage limit reached|1767240000' }] }]);
      probe = await runCli(['probe', '--profile', 'fake', '--scenario', scenario], { env: { TEMPORAL_ADDRESS: address(), COMMONPLACE_FAKE_LEDGER: ledger } });
    });

    test('makes the CLI print the usage-limit outcome and when the limit resets, and exit 2', () => {
      expect(probe.exitCode).toBe(2);
      expect(probe.stdout).toMatch(/^probe (probe\/fake\/\S+): profile fake \(fake\) — usage-limit$/m);
      expect(probe.stdout).toMatch(/^ {2}the limit resets at 2026-01-01T04:00:00\.000Z$/m);
      expect(probe.stderr).not.toMatch(/failed:|at /);
    });

    test('with --json prints a run-outcome document: failed, exit 2, the probe under result', async () => {
      const { ledger, scenario } = await fakeScenario(await scratch(), [{ attempts: [{ usageLimit: 'Claude AI usage limit reached|1767240000' }] }]);
      const run = await runCli(['probe', '--profile', 'fake', '--scenario', scenario, '--json'], {
        env: { TEMPORAL_ADDRESS: address(), COMMONPLACE_FAKE_LEDGER: ledger },
      });
      expect(run.exitCode).toBe(2);
      expect(expectShape(String(run.stdout), 'run-outcome')).toMatchObject({
        status: 'failed',
        exitCode: 2,
        result: { profile: 'fake', outcome: { status: 'usage-limit' } },
      });
    });

    test('fails its workflow (probe-failed)', async () => {
      const workflowId = /^probe (probe\/fake\/\S+):/m.exec(String(probe.stdout))?.[1] ?? '';
      expect((await env().client.workflow.getHandle(workflowId).describe()).status.name).toBe('FAILED');
    });
  });

  test('an unknown profile is a one-line error naming the known ones, refused before a workflow starts', async () => {
    const probe = await runCli(['probe', '--profile', 'nosuch'], { env: { TEMPORAL_ADDRESS: address() } });
    expect(probe.exitCode).toBe(1);
    const lines = String(probe.stderr).trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^commonplace: unknown worker profile "nosuch" .*known: claude, claude-lean, codex, pi, fake/);
    const started = await env().client.workflowService.countWorkflowExecutions({
      namespace: env().namespace ?? 'default',
      query: 'WorkflowId STARTS_WITH "probe/nosuch/"',
    });
    expect(Number(started.count)).toBe(0);
  });

  test('an unreachable server makes probe exit 1 with one line naming the address and suggesting commonplace dev', async () => {
    const probe = await runCli(['probe', '--profile', 'fake'], { env: { TEMPORAL_ADDRESS: '127.0.0.1:1' } });
    expect(probe.exitCode).toBe(1);
    const lines = String(probe.stderr).trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^commonplace: cannot reach Temporal at 127\.0\.0\.1:1 .*`\S*.* dev --port 1 --ui-port 1001[^`]*`/);
  });

  test('an unreachable server makes worker say where it connects, then exit 1 with one line naming the address and suggesting commonplace dev', async () => {
    const worker = await runCli(['worker'], { env: { TEMPORAL_ADDRESS: '127.0.0.1:1' } });
    expect(worker.exitCode).toBe(1);
    expect(String(worker.stderr).trim().split('\n')).toEqual([
      'loading the worker (the Temporal SDK, the activities)...',
      `connecting to 127.0.0.1:1 (namespace ${env().namespace ?? 'default'})...`,
      expect.stringMatching(/cannot reach Temporal at 127\.0\.0\.1:1 .*`\S*.* dev --port 1 --ui-port 1001[^`]*`/),
    ]);
  });

  test('a usage error exits 1', async () => {
    const probe = await runCli(['probe']);
    expect(probe.exitCode).toBe(1);
    expect(probe.stderr).toMatch(/required option '--profile <name>'/);
  });
});
