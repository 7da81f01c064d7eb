import type { FakeRule } from '../helpers/fake.js';
import { useDevServerWithCliWorker } from '../helpers/servers.js';
import { editFixture, editorRule, gatesOf, launches, NOTE, reviewsPass, runOf } from './helpers.js';

const { address } = useDevServerWithCliWorker();

const USAGE_LIMIT = { usageLimit: 'Claude AI usage limit reached|1767240000' };
const tighten = (text: string) => text.replace('The convention is deliberately minimal', 'The convention is minimal');

async function setup(rules: (start: string) => FakeRule[]) {
  const { checkout, start, ledger, run, planFile } = await editFixture(address(), rules);
  return {
    checkout,
    start,
    ledger,
    fullPass: (...extra: string[]) => run('full-pass', ...extra),
    revise: (...extra: string[]) => run('revise', ...extra),
    planFile,
  };
}

const jobsOf = async (ledger: string) => (await launches(ledger)).map((launch) => launch.job);
const count = (jobs: string[], job: string) => jobs.filter((name) => name === job).length;

describe('one ask, keyed run-wide, in editing runs', () => {
  test('a full pass stopped at its editor and resumed asks only the editor again: no review answered before the stop is launched twice', async () => {
    // The editor's first launch meets a usage limit; its next answers a clean no-edit.
    const noEdit = { outputs: { 'edited.md': '', 'decision.md': 'The reviews found nothing to resolve.\n\nDecision: no-edit\n' } };
    const run = await setup(() => [{ match: '^job = edit$', attempts: [USAGE_LIMIT, noEdit] }, { attempts: [reviewsPass] }]);
    const { lenses } = await gatesOf(run.checkout);

    const stopped = await run.fullPass('--concurrency', '1');
    expect(stopped.exitCode).toBe(2);
    expect(stopped.stdout).toMatch(/stopped: usage-limit/);
    const atStop = await jobsOf(run.ledger);
    expect(count(atStop, 'gate-review')).toBe(lenses.length + 1);
    expect(count(atStop, 'edit')).toBe(1);

    const resumed = await run.fullPass();
    expect(resumed.exitCode).toBe(0);
    const atEnd = await jobsOf(run.ledger);
    expect(count(atEnd, 'gate-review')).toBe(lenses.length + 1);
    expect(count(atEnd, 'edit')).toBe(2);
  });

  test("a full pass whose editor repeats a refused answer launches it twice, not three times: the third ask has the second one's key", async () => {
    const run = await setup(() => [
      editorRule({ outputs: { 'edited.md': '', 'decision.md': 'I read the reviews.\n\nno decision line\n' } }),
      { attempts: [reviewsPass] },
    ]);
    const { runId } = runOf('full-pass', NOTE, run.start, run.checkout);

    const ended = await run.fullPass();
    expect(ended.exitCode).toBe(2);
    expect(ended.stdout).toMatch(new RegExp(`full-pass ${runId} .*exhausted|budget-exhausted`));
    const edits = (await launches(run.ledger)).filter((launch) => launch.job === 'edit');
    expect(edits).toHaveLength(2);
    expect(new Set(edits.map((launch) => launch.promptSha256)).size).toBe(2);
  });

  test('a revision stopped at its pass and resumed asks only the pass again: the assessment answered before the stop is not launched twice', async () => {
    const run = await setup((start) => [
      { match: '^job = assess$', attempts: [{ outputs: { 'plan.yaml': 'passes:\n  - pass: tighten\n    reason: it says one thing twice\n' } }] },
      { match: '^job = revise$', attempts: [USAGE_LIMIT, { outputs: { 'edited.md': tighten(start) } }] },
    ]);
    const stopped = await run.revise('--assess');
    expect(stopped.exitCode).toBe(2);
    expect(stopped.stdout).toMatch(/stopped: usage-limit/);
    expect(await jobsOf(run.ledger)).toEqual(['assess', 'revise']);

    const resumed = await run.revise('--assess');
    expect(resumed.exitCode).toBe(2);
    expect(resumed.stdout).toMatch(/waits for approval: awaiting-approval/);
    expect(await jobsOf(run.ledger)).toEqual(['assess', 'revise', 'revise']);
  });

  test("a revision whose assessment repeats a refused plan launches it twice, not three times: the third ask has the second one's key", async () => {
    const run = await setup(() => [{ match: '^job = assess$', attempts: [{ outputs: { 'plan.yaml': 'passes:\n  - shorten\n' } }] }]);
    const ended = await run.revise('--assess');
    expect(ended.exitCode).toBe(2);
    expect(ended.stdout).toMatch(/budget-exhausted/);
    const assessments = (await launches(run.ledger)).filter((launch) => launch.job === 'assess');
    expect(assessments).toHaveLength(2);
    expect(new Set(assessments.map((launch) => launch.promptSha256)).size).toBe(2);
  });
});
