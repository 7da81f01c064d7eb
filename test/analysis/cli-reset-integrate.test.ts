// The analysis CLI's reset and integrate; prepare and run are test/analysis/cli.test.ts.
import { access, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Manifest } from '../../src/analysis/manifest.js';
import { runCli } from '../helpers/cli.js';
import { expectShape } from '../helpers/json-shape.js';
import { git, readJson } from './helpers.js';
import { useDevServerWithCliWorker } from '../helpers/servers.js';
import { analysisCli, branches, expectRunOutcome, scenarioFor, workflowOf, type Prepared } from './cli-helpers.js';

const { env, address } = useDevServerWithCliWorker();
const { prepare, prepared } = analysisCli(address);

describe('commonplace analysis reset', () => {
  test('reset says what it discards and does nothing without --yes; with --yes it cancels the workflow (it closes cancelled) and removes worktree and branch; run of the ID says it is gone and the next prepare takes the next nn', async () => {
    const run = await prepared();
    const { args } = await scenarioFor(run, () => ({ reconciliation: [{ usageLimit: 'Claude AI usage limit reached|1767240000' }] }));
    const stopped = await runCli(['analysis', 'run', run.runId, ...args, '--json'], { env: run.cliEnv });
    expectRunOutcome(stopped, run, 2, {
      status: 'stopped',
      next: `commonplace analysis run ${run.runId}`,
      stops: [expect.objectContaining({ kind: 'usage-limit', disposition: 'retry' })],
      progress: expect.objectContaining({ stage: 'reconciliation' }),
    });

    const told = await runCli(['analysis', 'reset', run.runId, '--kb', run.checkout], { env: run.cliEnv });
    expect(told.exitCode).toBe(1);
    expect(told.stdout).toContain(
      `reset ${run.runId} discards:\n  - workflow ${workflowOf(run)} (open: it will be cancelled, and terminated if it has not closed 30 s later`,
    );
    expect(told.stdout).toContain(`  - worktree ${run.worktree}, with the run's state`);
    expect(told.stdout).toContain(`  - branch analysis/${run.runId}\n`);
    expect(told.stdout).toMatch(/nothing was discarded; run again with --yes/);
    const toldJson = await runCli(['analysis', 'reset', run.runId, '--kb', run.checkout, '--json'], { env: run.cliEnv });
    expect(toldJson.exitCode).toBe(1);
    expect(expectShape(String(toldJson.stdout), 'analysis-reset')).toEqual(
      expect.objectContaining({
        runId: run.runId,
        outcome: 'not-discarded',
        workflowId: workflowOf(run),
        next: `commonplace analysis reset ${run.runId} --yes`,
        discards: [
          expect.stringMatching(/^workflow .* \(open: /),
          `worktree ${run.worktree}, with the run's state (launches, checks, store, artifact)`,
          `branch analysis/${run.runId}`,
        ],
      }),
    );
    await access(run.worktree);
    expect(await branches(run.checkout)).toEqual([`analysis/${run.runId}`]);
    expect((await env().client.workflow.getHandle(workflowOf(run)).describe()).status.name).toBe('RUNNING');

    const reset = await runCli(['analysis', 'reset', run.runId, '--yes', '--kb', run.checkout], { env: run.cliEnv });
    expect(reset.stderr).toBe(`cancelling ${workflowOf(run)}; waiting up to 30 s for it to close`);
    expect(reset.exitCode).toBe(0);
    expect(reset.stdout).toMatch(new RegExp(`^cancelled ${workflowOf(run)}: it closed on the cancellation$`, 'm'));
    expect(reset.stdout).toMatch(new RegExp(`^reset ${run.runId}: discarded`, 'm'));
    const closed = await env().client.workflow.getHandle(workflowOf(run)).describe();
    expect(closed.status.name).toBe('CANCELLED');
    expect(closed.typedSearchAttributes.getAll().find((pair) => pair.key.name === 'CommonplaceStatus')?.value).toBe('cancelled');
    await expect(access(run.worktree)).rejects.toThrow();
    expect(await branches(run.checkout)).toEqual([]);
    expect(await git(run.checkout, 'worktree', 'list', '--porcelain')).not.toContain(run.runId);

    const gone = await runCli(['analysis', 'run', run.runId, ...args], { env: run.cliEnv });
    expect(gone.exitCode).toBe(1);
    expect(gone.stderr).toMatch(new RegExp(`^commonplace: run ${run.runId} was reset at \\S+: it is gone`));
    const again = await runCli(['analysis', 'reset', run.runId, '--yes', '--kb', run.checkout], { env: run.cliEnv });
    expect(again.exitCode).toBe(0);
    expect(again.stdout).toMatch(/was already reset at .*: nothing to discard/);
    const againJson = await runCli(['analysis', 'reset', run.runId, '--yes', '--kb', run.checkout, '--json'], { env: run.cliEnv });
    expect(againJson.exitCode).toBe(0);
    expect(expectShape(String(againJson.stdout), 'analysis-reset')).toEqual(
      expect.objectContaining({ outcome: 'already-reset', discards: [], record: expect.stringMatching(new RegExp(`reset/${run.runId}\\.json$`)) }),
    );

    const system = /^AAS-\d{4}-\d{2}-\d{2}-(.+)-01$/.exec(run.runId)?.[1] ?? '';
    const next = await prepare(run.checkout, system);
    expect(next.exitCode).toBe(0);
    expect(next.stdout).toMatch(new RegExp(`^prepared ${run.runId.replace(/-01$/, '-02')}$`, 'm'));
  });

  test('an interrupted reset (its record begun, the worktree still there) is finished by running reset again', async () => {
    const run = await prepared();
    const record = join(run.checkout, '.commonplace', 'analysis', 'reset', `${run.runId}.json`);
    await mkdir(dirname(record), { recursive: true });
    await writeFile(
      record,
      `${JSON.stringify({ run: run.runId, state: 'resetting', discards: [], worktree: run.worktree, startedAt: '2026-12-01T10:00:00.000Z' })}\n`,
    );
    const blocked = await runCli(['analysis', 'run', run.runId, '--kb', run.checkout], { env: run.cliEnv });
    expect(blocked.exitCode).toBe(1);
    expect(blocked.stderr).toMatch(/is being reset \(begun 2026-12-01T10:00:00\.000Z\): finish it with/);
    const told = await runCli(['analysis', 'reset', run.runId, '--kb', run.checkout], { env: run.cliEnv });
    expect(told.exitCode).toBe(1);
    expect(told.stdout).toMatch(new RegExp(`^finishing the reset of ${run.runId} begun 2026-12-01T10:00:00\\.000Z:`, 'm'));
    const finished = await runCli(['analysis', 'reset', run.runId, '--yes', '--kb', run.checkout, '--json'], { env: run.cliEnv });
    expect(finished.exitCode).toBe(0);
    const document = expectShape(String(finished.stdout), 'analysis-reset');
    expect(document).toEqual(
      expect.objectContaining({ runId: run.runId, outcome: 'discarded', workflowId: workflowOf(run), begunAt: '2026-12-01T10:00:00.000Z', record }),
    );
    expect(document).not.toHaveProperty('ended');
    await expect(access(run.worktree)).rejects.toThrow();
    expect(await branches(run.checkout)).toEqual([]);
    expect(JSON.parse(await readFile(record, 'utf8'))).toEqual(expect.objectContaining({ state: 'reset' }));
  });
});

describe('commonplace analysis integrate', () => {
  /** What publication leaves: the artifact committed on the run branch and the manifest saying published. */
  async function published(run: Prepared): Promise<string> {
    const destination = `kb/agentic-systems/toy/${run.runId}`;
    await mkdir(join(run.worktree, destination), { recursive: true });
    await writeFile(join(run.worktree, destination, 'boundary.md'), `---\nrun: ${run.runId}\n---\n# Boundary\n`);
    await git(run.worktree, 'add', '-A');
    await git(run.worktree, 'commit', '--quiet', '-m', `Publish analysis ${run.runId}`);
    const manifestPath = join(run.worktree, '.commonplace', 'analysis', run.runId, 'manifest.json');
    await writeFile(manifestPath, JSON.stringify({ ...(await readJson<Manifest>(manifestPath)), status: 'published' }));
    return `${destination}/boundary.md`;
  }
  const integrate = (run: Prepared, extra: string[] = []) => runCli(['analysis', 'integrate', run.runId, '--kb', run.checkout, ...extra], { env: run.cliEnv });
  /** `integrate --json`'s document, once it exited 0. */
  const integratedJson = async (run: Prepared) => {
    const result = await integrate(run, ['--json']);
    expect(result.exitCode).toBe(0);
    return expectShape(String(result.stdout), 'analysis-integrate');
  };
  /** What every integration of the run into main says. */
  const integration = (run: Prepared) => ({ shape: 'analysis-integrate', version: 1, runId: run.runId, branch: `analysis/${run.runId}`, into: 'main' });

  test('on a clean main it merges the run branch; a second integrate is a no-op', async () => {
    const run = await prepared();
    const file = await published(run);
    await writeFile(join(run.checkout, 'kb', 'notes', 'unrelated.md'), '# Unrelated\n');
    await git(run.checkout, 'add', '-A');
    await git(run.checkout, 'commit', '--quiet', '-m', 'main moved elsewhere');
    const first = await integrate(run);
    expect(first.stderr).toBe('');
    expect(first.exitCode).toBe(0);
    expect(first.stdout).toMatch(new RegExp(`^integrated ${run.runId} into main at [0-9a-f]{12} \\(1 path\\):\\n {2}${file}$`));
    await access(join(run.checkout, file));
    expect(await git(run.checkout, 'log', '-1', '--format=%s')).toBe(
      `Integrate analysis ${run.runId} (${/^AAS-\d{4}-\d{2}-\d{2}-(.+)-\d+$/.exec(run.runId)?.[1]})`,
    );
    const head = await git(run.checkout, 'rev-parse', 'HEAD');
    const second = await integrate(run);
    expect(second.exitCode).toBe(0);
    expect(second.stdout).toBe(`run ${run.runId} is already integrated into main: nothing to do`);
    expect(await git(run.checkout, 'rev-parse', 'HEAD')).toBe(head);
    expect(await integratedJson(run)).toEqual({ ...integration(run), outcome: 'already-integrated' });
  });

  test('--json prints the merge: the commit and the paths it brought in', async () => {
    const run = await prepared();
    const file = await published(run);
    expect(await integratedJson(run)).toEqual({ ...integration(run), outcome: 'merged', commit: await git(run.checkout, 'rev-parse', 'HEAD'), paths: [file] });
  });

  test('a main that changed the same paths is refused with the paths, and nothing is merged', async () => {
    const run = await prepared();
    const file = await published(run);
    await mkdir(dirname(join(run.checkout, file)), { recursive: true });
    await writeFile(join(run.checkout, file), '# Someone else\n');
    await git(run.checkout, 'add', '-A');
    await git(run.checkout, 'commit', '--quiet', '-m', 'main wrote the same path');
    const head = await git(run.checkout, 'rev-parse', 'HEAD');
    const refused = await integrate(run);
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toMatch(
      new RegExp(`^commonplace: main changed paths the run also changed since [0-9a-f]{12}, so analysis/${run.runId} is not merged: ${file}$`),
    );
    expect(await git(run.checkout, 'rev-parse', 'HEAD')).toBe(head);
    expect(await git(run.checkout, 'status', '--porcelain')).toBe('');
  });

  test('a run that is not published is refused, naming its manifest status', async () => {
    const run = await prepared();
    const refused = await integrate(run);
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toMatch(new RegExp(`^commonplace: run ${run.runId} is not published \\(its manifest \\S+manifest\\.json says prepared\\)`));
    const inspected = await runCli(['analysis', 'inspect', run.runId, '--kb', run.checkout, '--json'], { env: run.cliEnv });
    expect(inspected.exitCode).toBe(0);
    expect(expectShape(String(inspected.stdout), 'analysis-inspect')).toEqual(
      expect.objectContaining({
        runId: run.runId,
        status: 'prepared',
        worktree: run.worktree,
        readFrom: 'prepared, never started',
        parameters: expect.objectContaining({ run: run.runId }),
      }),
    );
  });
});
