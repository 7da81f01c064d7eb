// The shipped method run whole: the example KB with the method installed, the example system quill, and
// the fake harness playing the method's scenario, through one correction round to a published artifact.
import { cp } from 'node:fs/promises';
import { join } from 'node:path';
import { installMethod } from '../../src/activities/analysis/method.js';
import { prepareRun } from '../../src/activities/analysis/prepare.js';
import type { AnalysisResult } from '../../src/analysis/progress.js';
import { packageRoot } from '../../src/paths.js';
import { runCli } from '../helpers/cli.js';
import { readLedger } from '../helpers/fake.js';
import { useDevServer } from '../helpers/servers.js';
import { testWorker } from '../helpers/temporal.js';
import { analysisInput, git, nextPreparationDay, scratch, startAnalysis, toyProfiles } from './helpers.js';

const { env } = useDevServer();

test('the shipped method over the example system, played by the fake harness from its scenario: one correction round, published, and commonplace validate accepts the artifact', async () => {
  const checkout = join(await scratch('commonplace-method-run-'), 'kb-checkout');
  await cp(join(packageRoot(), 'examples', 'kb'), join(checkout, 'kb'), { recursive: true });
  await git(checkout, 'init', '--quiet', '--initial-branch=main');
  await git(checkout, 'config', 'user.name', 'Method Test');
  await git(checkout, 'config', 'user.email', 'method-test@example.invalid');
  await installMethod(checkout);
  await git(checkout, 'add', '-A');
  await git(checkout, 'commit', '--quiet', '-m', 'example KB with the method');
  const run = await prepareRun({
    checkout,
    system: 'quill',
    source: join(packageRoot(), 'examples', 'systems', 'quill'),
    profile: 'fake',
    now: nextPreparationDay(),
  });
  const dir = await scratch();
  const input = analysisInput(run, await toyProfiles(dir), {
    COMMONPLACE_FAKE_SCENARIO: join(packageRoot(), 'examples', 'scenarios', 'agentic-analysis.json'),
  });
  const worker = await testWorker(env(), { stateDir: join(dir, 'state') });
  const outcome = (await worker.runUntil(async () => (await startAnalysis(env(), input)).result())) as AnalysisResult;
  expect([outcome.status, outcome.disposition]).toEqual(['completed', 'published']);
  const corrections = outcome.progress.attempts.filter((attempt) => attempt.kind === 'correction').map((attempt) => [attempt.role, attempt.outcome]);
  expect(corrections).toEqual([['lens-learning', 'accepted']]);
  expect((await readLedger(join(run.runDir, 'fake-ledger.jsonl'))).filter((entry) => entry.event === 'start')).toHaveLength(14);
  const destination = `kb/agentic-systems/quill/${run.runId}`;
  expect(outcome.publication?.destination).toBe(destination);
  const validated = await runCli(['validate', destination], { cwd: run.worktree, reject: false });
  expect([validated.exitCode, validated.stdout]).toEqual([0, expect.stringMatching(/^12 files \(11 notes, 1 published manifest\): 0 failures, 0 warnings$/m)]);
});
