import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runCli, startCli } from '../helpers/cli.js';
import { fakeScenario, readLedger, scratch } from '../helpers/fake.js';
import { startDevEnvironment } from '../helpers/temporal.js';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await startDevEnvironment();
});
afterAll(async () => {
  await env?.teardown();
});

describe('commonplace probe', () => {
  test('the probe workflow runs on the dev server from the CLI, and the CLI prints the result', async () => {
    const dir = await scratch();
    const { ledger, scenario } = await fakeScenario(dir, [{ attempts: [{ writeDeclared: 'probe ok\n', model: 'fake-model-7' }] }]);
    const cliEnv = { TEMPORAL_ADDRESS: env.connection.options.address, COMMONPLACE_FAKE_LEDGER: ledger };
    const worker = startCli(['worker', '--state', join(dir, 'state')], { env: cliEnv });
    try {
      const probe = await runCli(['probe', '--profile', 'fake', '--scenario', scenario], { env: cliEnv });
      expect(probe.stderr).not.toMatch(/Error|at /);
      expect(probe.exitCode).toBe(0);
      const digest = createHash('sha256').update('probe ok\n').digest('hex');
      expect(probe.stdout).toMatch(/^probe probe\/fake\/\S+: profile fake \(fake\) — completed$/m);
      expect(probe.stdout).toContain(`output probe.md: 9 bytes, sha256 ${digest}`);
      expect(probe.stdout).toContain('model fake-model-7');
      expect((await readLedger(ledger)).filter((entry) => entry.event === 'start')).toHaveLength(1);

      const json = await runCli(['probe', '--profile', 'fake', '--scenario', scenario, '--json'], { env: cliEnv });
      const parsed = JSON.parse(String(json.stdout));
      expect(parsed.outcome.status).toBe('completed');
      const described = await env.client.workflow.getHandle(parsed.workflowId).describe();
      expect(described.typedSearchAttributes.getAll().map((pair) => [pair.key.name, pair.value])).toEqual(
        expect.arrayContaining([
          ['CommonplaceKind', 'probe'],
          ['CommonplaceStatus', 'completed'],
          ['CommonplaceProfile', 'fake'],
        ]),
      );
      expect(await described.staticSummary()).toBe('probe of worker profile fake');
      await expect(readFile(join(parsed.dir, 'probe.md'), 'utf8')).resolves.toBe('probe ok\n');
    } finally {
      worker.kill('SIGINT');
      await worker;
    }
  });

  test('a probe whose launch hits a usage limit fails its workflow (probe-failed), and the CLI prints the outcome with exit 2', async () => {
    const dir = await scratch();
    const { ledger, scenario } = await fakeScenario(dir, [{ attempts: [{ usageLimit: 'Claude AI usage limit reached|1767240000' }] }]);
    const cliEnv = { TEMPORAL_ADDRESS: env.connection.options.address, COMMONPLACE_FAKE_LEDGER: ledger };
    const worker = startCli(['worker', '--state', join(dir, 'state')], { env: cliEnv });
    try {
      const probe = await runCli(['probe', '--profile', 'fake', '--scenario', scenario], { env: cliEnv });
      expect(probe.exitCode).toBe(2);
      expect(probe.stdout).toMatch(/^probe (probe\/fake\/\S+): profile fake \(fake\) — usage-limit$/m);
      expect(probe.stdout).toMatch(/^ {2}the limit resets at 2026-01-01T04:00:00\.000Z$/m);
      expect(probe.stderr).not.toMatch(/failed:|at /);
      const workflowId = /^probe (probe\/fake\/\S+):/m.exec(String(probe.stdout))?.[1] ?? '';
      expect((await env.client.workflow.getHandle(workflowId).describe()).status.name).toBe('FAILED');
    } finally {
      worker.kill('SIGINT');
      await worker;
    }
  });

  test('an unknown profile is a one-line error naming the known ones', async () => {
    const dir = await scratch();
    const worker = startCli(['worker', '--state', join(dir, 'state')], { env: { TEMPORAL_ADDRESS: env.connection.options.address } });
    try {
      const probe = await runCli(['probe', '--profile', 'nosuch'], { env: { TEMPORAL_ADDRESS: env.connection.options.address } });
      expect(probe.exitCode).toBe(1);
      expect(String(probe.stderr).trim().split('\n').at(-1)).toMatch(/unknown worker profile "nosuch" .*known: claude, codex, pi, fake/);
    } finally {
      worker.kill('SIGINT');
      await worker;
    }
  });

  test('an unreachable server is a one-line error naming the address and suggesting commonplace dev', async () => {
    const probe = await runCli(['probe', '--profile', 'fake'], { env: { TEMPORAL_ADDRESS: '127.0.0.1:1' } });
    expect(probe.exitCode).toBe(1);
    const lines = String(probe.stderr).trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^commonplace: cannot reach Temporal at 127\.0\.0\.1:1 .*`commonplace dev`/);
    const worker = await runCli(['worker'], { env: { TEMPORAL_ADDRESS: '127.0.0.1:1' } });
    expect(worker.exitCode).toBe(1);
    expect(String(worker.stderr).trim().split('\n')).toEqual([expect.stringMatching(/cannot reach Temporal at 127\.0\.0\.1:1 .*`commonplace dev`/)]);
  });

  test('a usage error exits 2', async () => {
    const probe = await runCli(['probe']);
    expect(probe.exitCode).toBe(2);
    expect(probe.stderr).toMatch(/required option '--profile <name>'/);
  });
});
