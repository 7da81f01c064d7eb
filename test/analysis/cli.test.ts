import { checkoutIdOf } from '../helpers/kb.js';
import { packageRoot } from '../../src/paths.js';
import { WorkflowNotFoundError } from '@temporalio/client';
import { access, readdir, readFile, writeFile } from 'node:fs/promises';
import { delimiter, dirname, join } from 'node:path';
import type { Manifest } from '../../src/analysis/manifest.js';
import type { RunParameters } from '../../src/analysis/parameters.js';
import { runCli } from '../helpers/cli.js';
import { expectShape } from '../helpers/json-shape.js';
import { git, readJson, sourceFixture, startsByRole, toyCheckout, toyPlan, toyPrepareArgs, writes, type Role } from './helpers.js';
import { useDevServerWithCliWorker } from '../helpers/servers.js';
import { analysisCli, branches, expectRunOutcome, scenarioFor, workflowOf } from './cli-helpers.js';

const { env, address } = useDevServerWithCliWorker();

const { nextSystem, prepare, prepared } = analysisCli(address);

describe('commonplace analysis prepare', () => {
  test('prepare allocates the next free run ID, makes the worktree on its branch at the current commit, writes parameters and manifest, and prints the next command', async () => {
    const checkout = await toyCheckout();
    const head = await git(checkout, 'rev-parse', 'HEAD');
    const first = await prepare(checkout, 'Toy System');
    expect(first.exitCode).toBe(0);
    const runId = /^prepared (AAS-\d{4}-\d{2}-\d{2}-toy-system-01)$/m.exec(String(first.stdout))?.[1];
    expect(runId).toBeDefined();
    expect(first.stdout).toMatch(new RegExp(`^next: node \\S+ analysis run ${runId} --kb ${checkout} --address \\S+( --namespace \\S+)?$`, 'm'));
    const worktree = join(checkout, '..', 'worktrees', runId ?? '');
    expect(await git(worktree, 'rev-parse', 'HEAD')).toBe(head);
    expect(await git(worktree, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe(`analysis/${runId}`);
    const runDir = join(worktree, '.commonplace', 'analysis', runId ?? '');
    const parameters = await readJson<RunParameters>(join(runDir, 'parameters.json'));
    expect(parameters).toEqual(
      expect.objectContaining({
        run: runId,
        system: 'Toy System',
        source: { kind: 'directory', location: sourceFixture },
        profile: 'fake',
        preparationCommit: head,
        plan: toyPlan,
        layout: 'kb/types/toy-analysis.layout.yaml',
        method: expect.objectContaining({ package: 'commonplace-temporal', commit: expect.stringMatching(/^[0-9a-f]{40}$/) }),
      }),
    );
    expect(parameters.planSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(await readJson<Manifest>(join(runDir, 'manifest.json'))).toEqual(
      expect.objectContaining({ run: runId, status: 'prepared', files: {}, members: [] }),
    );
    expect(await git(checkout, 'status', '--porcelain')).toBe('');
    expect(await git(worktree, 'status', '--porcelain')).toBe('');

    const second = await prepare(checkout, 'Toy System', ['--json']);
    expect(second.exitCode).toBe(0);
    const document = expectShape(String(second.stdout), 'analysis-prepared');
    const secondId = String(runId).replace(/-01$/, '-02');
    expect(document).toEqual(
      expect.objectContaining({
        runId: secondId,
        system: 'Toy System',
        worktree: join(checkout, '..', 'worktrees', secondId),
        branch: `analysis/${secondId}`,
        runDir: join(checkout, '..', 'worktrees', secondId, '.commonplace', 'analysis', secondId),
        next: `commonplace analysis run ${secondId}`,
        parameters: expect.objectContaining({ run: secondId, plan: toyPlan, preparationCommit: head }),
      }),
    );
  });

  test('prepare refuses a dirty checkout, naming the paths, and makes nothing', async () => {
    const checkout = await toyCheckout();
    await writeFile(join(checkout, 'kb', 'notes', 'draft.md'), '# Draft\n');
    await writeFile(join(checkout, 'AGENTS.md'), 'edited\n');
    const result = await prepare(checkout, nextSystem());
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(
      /^commonplace: the checkout has uncommitted changes, and a run is prepared from the last commit: AGENTS\.md, kb\/notes\/draft\.md; commit or stash them first$/,
    );
    expect(await branches(checkout)).toEqual([]);
    await expect(readdir(join(checkout, '..', 'worktrees'))).rejects.toThrow();
  });

  test.each([
    [
      'a key with an underscore',
      toyPlan,
      (text: string) => text.replace('prompt-section:', 'prompt_section:'),
      /kb\/instructions\/toy-analysis\/plan\.yaml:5: prompt_section: `prompt_section` has an underscore/,
    ],
    [
      'an unknown placeholder',
      'kb/instructions/toy-analysis/prompt-section.md',
      (text: string) => `${text}\nUse {colour}.\n`,
      /kb\/instructions\/toy-analysis\/prompt-section\.md:19: unknown placeholder \{colour\}/,
    ],
    [
      'a role the workflow needs missing',
      toyPlan,
      (text: string) => text.replace(/ {2}reconciliation:\n( {4}.*\n)+/, ''),
      /kb\/instructions\/toy-analysis\/plan\.yaml:\d+: roles: missing role reconciliation/,
    ],
    [
      'an unknown check name',
      toyPlan,
      (text: string) => text.replace('checks: [keeps-records]', 'checks: [keeps-recrods]'),
      /kb\/instructions\/toy-analysis\/plan\.yaml:\d+: roles\.memory-profile\.checks\.0: unknown check `keeps-recrods`/,
    ],
  ])('prepare refuses a plan with %s, naming the file and path, and makes nothing', async (_label, file, edit, message) => {
    const checkout = await toyCheckout();
    await writeFile(join(checkout, file), edit(await readFile(join(checkout, file), 'utf8')));
    await git(checkout, 'commit', '--quiet', '-am', 'a bad plan');
    const result = await prepare(checkout, nextSystem());
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(new RegExp(`^commonplace: plan ${toyPlan} is invalid:\\n`));
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toMatch(/\nnothing was prepared$/);
    expect(await branches(checkout)).toEqual([]);
  });
});

describe('commonplace analysis run', () => {
  test('a plan broken after prepare is refused by run, naming the path, and no workflow is started', async () => {
    const run = await prepared();
    const plan = join(run.worktree, toyPlan);
    await writeFile(plan, (await readFile(plan, 'utf8')).replace('  lens-memory:\n    instruction', '  lens_memory:\n    instruction'));
    const { args } = await scenarioFor(run);
    const result = await runCli(['analysis', 'run', run.runId, ...args], { env: run.cliEnv });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(/plan\.yaml:\d+: roles\.lens_memory: `lens_memory` has an underscore/);
    expect(result.stderr).toMatch(/nothing was started/);
    await expect(env().client.workflow.getHandle(workflowOf(run)).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
  });

  test('the boundary says out-of-scope: run exits 0, the result kept local, and nothing else is asked', async () => {
    const run = await prepared();
    const { args, ledger } = await scenarioFor(run, (clean) => ({
      boundary: [writes('boundary', clean.boundary.replace('disposition: published', 'disposition: out-of-scope'))],
    }));
    const detached = await runCli(['analysis', 'run', run.runId, ...args, '--detach', '--json', '--max-cost', '12.5'], { env: run.cliEnv });
    expect(detached.exitCode).toBe(0);
    expect(expectShape(String(detached.stdout), 'analysis-started')).toEqual({
      shape: 'analysis-started',
      version: 1,
      runId: run.runId,
      workflowId: workflowOf(run),
      action: 'started',
      next: `commonplace analysis run ${run.runId}`,
    });
    // The Web UI shows the run's parameters: what prepare fixed and what run was given.
    const details = await (await env().client.workflow.getHandle(workflowOf(run)).describe()).staticDetails();
    const parameters = await readJson<RunParameters>(join(run.worktree, '.commonplace', 'analysis', run.runId, 'parameters.json'));
    for (const row of [
      `| system | ${parameters.system} |`,
      `| run ID | ${run.runId} |`,
      '| profile | fake |',
      `| checkout | checkout ${checkoutIdOf(run.checkout)} |`,
      `| plan | ${toyPlan} |`,
      `| plan sha256 | ${parameters.planSha256} |`,
      `| layout | ${parameters.layout} |`,
      `| source | directory ${sourceFixture.replace(`${packageRoot()}/`, "the package's ")} |`,
      '| max cost (USD) | 12.5 |',
    ]) {
      expect(details).toContain(row);
    }

    const followed = await runCli(['analysis', 'run', run.runId, ...args, '--json'], { env: run.cliEnv });
    expectRunOutcome(followed, run, 0, { status: 'completed', result: expect.objectContaining({ disposition: 'out-of-scope' }) });

    // Once the workflow has completed, run says how it came out again, as text or JSON.
    const result = await runCli(['analysis', 'run', run.runId, ...args], { env: run.cliEnv });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`^run ${run.runId} ended out-of-scope: the boundary's result is kept local, nothing else was asked$`, 'm'));
    const again = await runCli(['analysis', 'run', run.runId, ...args, '--json'], { env: run.cliEnv });
    expectRunOutcome(again, run, 0, { status: 'completed', result: expect.objectContaining({ disposition: 'out-of-scope' }) });
    const starts = await startsByRole(ledger);
    expect(
      Object.entries(starts)
        .filter(([, list]) => list.length > 0)
        .map(([role]) => role),
    ).toEqual(['boundary']);
  });

  test('an exhausted budget ends the run exhausted with exit 2 naming the role and one next step, reset; running it again says the same', async () => {
    const run = await prepared();
    const { args } = await scenarioFor(run, (clean) => ({ 'runtime-report': [writes('runtime-report', `${clean['runtime-report']}\nFIXME\n`)] }));
    const ended = await runCli(['analysis', 'run', run.runId, ...args], { env: run.cliEnv });
    expect(ended.exitCode).toBe(2);
    expect(ended.stdout).toMatch(new RegExp(`^run ${run.runId} ended exhausted`, 'm'));
    expect(ended.stdout).toMatch(
      /^ {2}budget-exhausted \(operator\): runtime-report has used all 3 of its attempts; its last candidate was rejected: leaves `FIXME` in the text/m,
    );
    expect(ended.stdout).toMatch(new RegExp(`^  next: node \\S+ analysis reset ${run.runId} --kb `, 'm'));
    expect(String(ended.stdout).match(/commonplace\S* analysis \S+/g)).toEqual([expect.stringMatching(/ analysis reset$/)]);
    expect(ended.stdout).not.toMatch(/continue with|prepare a new run|reset it and run again/);
    expect((await env().client.workflow.getHandle(workflowOf(run)).describe()).status.name).toBe('COMPLETED');

    const again = await runCli(['analysis', 'run', run.runId, ...args], { env: run.cliEnv });
    expect(again.exitCode).toBe(2);
    expect(again.stdout).toMatch(new RegExp(`^  next: node \\S+ analysis reset ${run.runId} --kb `, 'm'));
    const againJson = await runCli(['analysis', 'run', run.runId, ...args, '--json'], { env: run.cliEnv });
    expectRunOutcome(againJson, run, 2, {
      status: 'exhausted',
      next: expect.stringMatching(new RegExp(`^commonplace analysis reset ${run.runId} `)),
      result: expect.objectContaining({ status: 'exhausted', stop: expect.objectContaining({ kind: 'budget-exhausted' }) }),
    });
    const inspectedJson = await runCli(['analysis', 'inspect', run.runId, '--kb', run.checkout, '--json'], { env: run.cliEnv });
    expect(inspectedJson.exitCode).toBe(0);
    expect(expectShape(String(inspectedJson.stdout), 'analysis-inspect')).toEqual(
      expect.objectContaining({ status: 'exhausted', next: expect.stringMatching(new RegExp(`^commonplace analysis reset ${run.runId} `)) }),
    );

    const inspected = await runCli(['analysis', 'inspect', run.runId, '--kb', run.checkout], { env: run.cliEnv });
    expect(inspected.exitCode).toBe(0);
    expect(inspected.stdout).toMatch(new RegExp(`^run ${run.runId} of toy-cli-\\d+: exhausted at `, 'm'));
    expect(inspected.stdout).toMatch(/^ {2}runtime-report +3\/3 used, 0 left$/m);
    expect(inspected.stdout).toMatch(/^ {2}runtime-report #\d+ +attempt 3 +re-ask +rejected/m);
    expect(inspected.stdout).toMatch(/evidence: \S+checks\/runtime-report\/\S+\/findings\.md/);
    expect(inspected.stdout).toMatch(new RegExp(`^  next: node \\S+ analysis reset ${run.runId} --kb `, 'm'));
  });

  test('a usage limit stops the run with exit 2 and the next command; the same command resumes it to completion without asking a completed launch again; inspect then reads it without Temporal', async () => {
    const run = await prepared();
    const { args, ledger } = await scenarioFor(run, (clean) => ({
      reconciliation: [{ usageLimit: 'Claude AI usage limit reached|1767240000' }, writes('reconciliation', clean.reconciliation)],
    }));
    const stopped = await runCli(['analysis', 'run', run.runId, ...args], { env: run.cliEnv });
    expect(stopped.exitCode).toBe(2);
    expect(stopped.stdout).toMatch(new RegExp(`^run ${run.runId} stopped at reconciliation:$`, 'm'));
    expect(stopped.stdout).toMatch(/^ {2}usage-limit \(retry\): fake usage limit: Claude AI usage limit reached/m);
    expect(stopped.stdout).toMatch(/^ {4}the limit resets at 2026-01-01T04:00:00\.000Z$/m);
    expect(stopped.stdout).toMatch(new RegExp(`^  continue with: node \\S+ analysis run ${run.runId} --kb \\S+ --address \\S+( --namespace \\S+)?$`, 'm'));

    const resumed = await runCli(['analysis', 'run', run.runId, ...args, '--json'], { env: run.cliEnv });
    expect(resumed.stderr).toMatch(/resuming analysis\/\S+ \(stopped: usage-limit\)/);
    const completed = expectRunOutcome(resumed, run, 0, {
      status: 'completed',
      result: expect.objectContaining({
        status: 'completed',
        publication: expect.objectContaining({ destination: expect.stringMatching(new RegExp(`^kb/analyses/toy-cli-\\d+/${run.runId}$`)) }),
      }),
    });
    expect(completed).not.toHaveProperty('next');
    const text = await runCli(['analysis', 'run', run.runId, ...args], { env: run.cliEnv });
    expect(text.exitCode).toBe(0);
    expect(text.stdout).toMatch(
      new RegExp(
        `^run ${run.runId} completed: the artifact is published to kb\\/analyses\\/toy-cli-\\d+\\/${run.runId} on branch analysis\\/${run.runId}$`,
        'm',
      ),
    );
    const starts = await startsByRole(ledger);
    expect(Object.fromEntries(Object.entries(starts).map(([role, list]) => [role, list.length]))).toEqual(
      expect.objectContaining({ boundary: 1, 'runtime-report': 1, 'lens-memory': 1, reconciliation: 2, 'report-verification': 1, synthesis: 1 }),
    );

    const offline = { TEMPORAL_ADDRESS: '127.0.0.1:1' };
    const inspected = await runCli(['analysis', 'inspect', run.runId, '--kb', run.checkout], { env: offline });
    expect(inspected.exitCode).toBe(0);
    expect(inspected.stdout).toMatch(new RegExp(`^run ${run.runId} of toy-cli-\\d+: completed at published \\(from \\S+run\\.json, written `, 'm'));
    expect(inspected.stdout).toMatch(/^ {2}reconciliation #1 +no attempt +write +usage-limit/m);
    expect(inspected.stdout).toMatch(/^ {2}reconciliation #2 +attempt 1 +write +accepted/m);
    expect(inspected.stdout).toMatch(/^ {2}synthesis +synthesis\.md +check passed +accepted by synthesis-verification/m);
    const json = expectShape(
      String((await runCli(['analysis', 'inspect', run.runId, '--kb', run.checkout, '--json'], { env: offline })).stdout),
      'analysis-inspect',
    ) as { status: string; manifest: string; attempts: unknown[]; readFrom: string; parameters: RunParameters };
    expect(json.status).toBe('completed');
    expect(json.readFrom).toMatch(/^from \S+run\.json, written /);
    expect(json.parameters.run).toBe(run.runId);
    expect(json.attempts).toHaveLength(12);
    await access(json.manifest);
  });

  test('a second checkout that prepared the same run ID runs its own workflow on the same namespace: workflow IDs carry the checkout ID', async () => {
    const system = nextSystem();
    const blocked = (clean: Record<Role, string>) => ({
      boundary: [writes('boundary', clean.boundary.replace('disposition: published', 'disposition: blocked'))],
    });
    const first = await prepared(system);
    expect((await runCli(['analysis', 'run', first.runId, ...(await scenarioFor(first, blocked)).args], { env: first.cliEnv })).exitCode).toBe(0);
    const second = await prepared(system);
    expect(second.runId).toBe(first.runId);
    const result = await runCli(['analysis', 'run', second.runId, ...(await scenarioFor(second, blocked)).args], { env: second.cliEnv });
    expect(result.exitCode).toBe(0);
    expect(workflowOf(second)).not.toBe(workflowOf(first));
    expect((await env().client.workflow.getHandle(workflowOf(second)).describe()).status.name).toBe('COMPLETED');
  });
});

describe("commonplace analysis prepare: the profile's CLI", () => {
  test('a profile whose CLI is not installed is refused at prepare, naming the CLI and how to install it, and nothing is made', async () => {
    const checkout = await toyCheckout();
    const result = await runCli(toyPrepareArgs(checkout, nextSystem(), { profile: 'codex' }), {
      env: { TEMPORAL_ADDRESS: address(), PATH: [dirname(process.execPath), '/usr/bin', '/bin'].join(delimiter) },
    });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(
      /^commonplace: profile codex needs the codex CLI "codex", which is not installed \(not found on PATH\): npm install -g @openai\/codex/,
    );
    expect(await branches(checkout)).toEqual([]);
  });
});
