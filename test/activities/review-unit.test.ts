// A model-API unit's try in one activity (src/activities/review/sweep/review-unit.ts): capture, the request,
// the checkout guard's check and acceptance; the answer recorded in the run's answers as it arrives, so a retry
// of the same activity, and any later activity asking the same, asks nothing again. The request is a stub that
// writes the review as the executor would.
import { MockActivityEnvironment } from '@temporalio/testing';
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createReviewUnit, type ReviewUnitInput, type ReviewUnitResult } from '../../src/activities/review/sweep/review-unit.js';
import { sweepGuardBaseline } from '../../src/activities/review/sweep/guard.js';
import type { LaunchInput, LaunchResult } from '../../src/harness/launch-contract.js';
import type { Profile } from '../../src/harness/profiles.js';
import { resultPath } from '../../src/review/paths.js';
import { selectPairs } from '../../src/review/status.js';
import { corpusCopy, someNotes } from '../helpers/kb.js';

const profile: Profile = { name: 'api', harness: 'anthropic', model: 'claude-haiku-4-5', flags: [], env: {}, timeoutMs: 60_000, attempts: 3 };

/** A request that writes a passing review into the launch directory, counting itself; `during` runs while it is "in flight". */
function stubRequest(during: () => Promise<void> = async () => undefined) {
  const asked: string[] = [];
  const launch = async (input: LaunchInput): Promise<LaunchResult> => {
    asked.push(input.launchId);
    await during();
    const text = 'Nothing to fix.\n\nResult: pass\n';
    await writeFile(join(input.dir, 'review.md'), text);
    return {
      launchId: input.launchId,
      profile: input.profile.name,
      harness: input.profile.harness,
      exitCode: 0,
      timedOut: false,
      durationMs: 1,
      outputs: [{ path: 'review.md', sha256: 'stub', size: text.length }],
      missing: [],
      model: 'claude-haiku-4-5',
      modelSource: 'harness',
      usage: null,
      costUsd: null,
      try: 1,
      logDir: '.launch/try-1',
    };
  };
  return { asked, launch };
}

async function oneUnit(): Promise<{ checkout: string; input: ReviewUnitInput; result: string }> {
  const checkout = await corpusCopy();
  const [note] = await someNotes(1);
  const pair = (await selectPairs(checkout, { notes: [note!], criteria: ['gates'] }))[0]!;
  const runId = 'GS-review-unit';
  const guard = await sweepGuardBaseline({ checkout, runId, name: 'batch-1' });
  // The profiles the run prepared, as prepareSweep writes them: the activity is handed the name.
  await writeFile(join(checkout, 'kb', 'reports', 'state', 'review', 'runs', runId, 'profiles.json'), JSON.stringify({ [profile.name]: profile }));
  const unit = { key: 'unit-1', note: pair.note, lens: pair.lens ?? 'all', criteria: [{ id: pair.criterion, path: pair.criterionPath, report: false }] };
  return {
    checkout,
    input: { runId, checkout, unit, attempt: 1, findings: [], profile: profile.name, guard },
    result: join(checkout, resultPath(pair.note, pair.criterion)),
  };
}

test('a model-API unit is captured, asked once and accepted in one activity: its result file is written', async () => {
  const { input, result } = await oneUnit();
  const request = stubRequest();
  const reviewed: ReviewUnitResult = await new MockActivityEnvironment().run(createReviewUnit({ launch: request.launch }), input);
  expect(request.asked).toEqual([`${input.runId}/unit-1/1`]);
  expect(reviewed.check?.changed).toBeUndefined();
  expect(reviewed.launch.adopted).toBeUndefined();
  expect(reviewed.check?.written).toEqual([{ criterion: input.unit.criteria[0]!.id, outcome: 'pass' }]);
  expect(await readFile(result, 'utf8')).toMatch(/outcome: pass/);
});

test('a retry of the activity after its worker died with the answer recorded asks nothing again and accepts the recorded answer', async () => {
  const { input, result } = await oneUnit();
  const request = stubRequest();
  const env = new MockActivityEnvironment();
  // The first attempt ends right after the answer is recorded, as a killed worker's would.
  const dying = createReviewUnit({ launch: request.launch, faults: { at: (point) => Promise.reject(new Error(`died at ${point}`)) } });
  await expect(env.run(dying, input)).rejects.toThrow('died at answer-recorded');
  const reviewed: ReviewUnitResult = await env.run(createReviewUnit({ launch: request.launch }), input);
  expect(request.asked).toHaveLength(1);
  // Its own answer: the workflow never saw the first attempt's result, so this one is counted.
  expect(reviewed.launch.adopted).toBeUndefined();
  expect(reviewed.check?.written).toHaveLength(1);
  expect(await readFile(result, 'utf8')).toMatch(/outcome: pass/);
});

test('another activity asking the same (a later execution of the run) adopts the recorded answer: nothing is asked, and it comes back adopted, not to be counted again', async () => {
  const { input, result } = await oneUnit();
  const request = stubRequest();
  await new MockActivityEnvironment({ activityId: 'first' }).run(createReviewUnit({ launch: request.launch }), input);
  const later: ReviewUnitResult = await new MockActivityEnvironment({ activityId: 'second' }).run(createReviewUnit({ launch: request.launch }), input);
  expect(request.asked).toHaveLength(1);
  expect(later.launch.adopted).toBe(true);
  expect(later.check?.written).toEqual([{ criterion: input.unit.criteria[0]!.id, outcome: 'pass' }]);
  expect(await readFile(result, 'utf8')).toMatch(/outcome: pass/);
});

test('an answer that came while the KB changed is not accepted: the changed path is named and no result file is written', async () => {
  const { checkout, input, result } = await oneUnit();
  const [, other] = await someNotes(2);
  const request = stubRequest(() => appendFile(join(checkout, other!), '\nAn edit made while the request ran.\n'));
  const reviewed: ReviewUnitResult = await new MockActivityEnvironment().run(createReviewUnit({ launch: request.launch }), input);
  expect(reviewed.check?.changed).toEqual([other]);
  expect(reviewed.check?.written).toEqual([]);
  await expect(readFile(result, 'utf8')).rejects.toThrow(/ENOENT/);
});
