// The analysis workflow's stops and refusals (a usage limit and resume, a changed environment, writes outside the
// outputs, an exhausted budget, a duplicate re-ask), apart from its runs that go through (workflow.test.ts): one file
// each keeps both under the 90 s budget beside two other jest workers.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { AnalysisProgress, AnalysisResult } from '../../src/analysis/progress.js';
import { CommonplaceStatus } from '../../src/search-attributes.js';
import { readLedger } from '../helpers/fake.js';
import {
  attemptsOf,
  expectLaunches,
  result,
  withRun,
  git,
  progressUntil,
  readJson,
  ROLES,
  startsByRole,
  updateRejection,
  writes,
  type Role,
} from './helpers.js';
import { useDevServer } from '../helpers/servers.js';

const { env } = useDevServer();
const LENSES = ['lens-control', 'lens-memory', 'lens-learning'] as const;

describe('a run stopped by a usage limit and resumed', () => {
  const resetEpoch = Math.floor(Date.now() / 1000) + 3600;
  let stoppedAt: AnalysisProgress;
  let statusAtStop: unknown;
  let resumed: AnalysisProgress;
  let outcome: AnalysisResult;
  let before: Awaited<ReturnType<typeof readLedger>>;
  let after: Awaited<ReturnType<typeof readLedger>>;
  let starts: Record<Role, unknown[]>;
  beforeAll(async () => {
    await withRun(
      env(),
      (clean) => ({ 'lens-memory': [{ usageLimit: `Claude AI usage limit reached|${resetEpoch}` }, writes('lens-memory', clean['lens-memory'])] }),
      async ({ handle, ledger }) => {
        stoppedAt = await progressUntil(handle, (progress) => progress.status === 'stopped');
        statusAtStop = (await handle.describe()).typedSearchAttributes.get(CommonplaceStatus);
        before = await readLedger(ledger);
        resumed = (await handle.executeUpdate('resume')) as AnalysisProgress;
        outcome = await result(handle);
        after = await readLedger(ledger);
        starts = await startsByRole(ledger);
      },
    );
  });

  test('the usage limit stops the run for a retry, with the reset time and the launch as evidence', () => {
    expect(stoppedAt.stops.map((stop) => [stop.kind, stop.disposition, stop.kind === 'usage-limit' ? stop.resetAt : undefined])).toEqual([
      ['usage-limit', 'retry', new Date(resetEpoch * 1000).toISOString()],
    ]);
    expect(stoppedAt.stops[0]?.evidence).toMatch(/launches\/lens-memory\/1\/\.launch$/);
  });

  test('without --auto-resume the stopped run does not resume by itself', () => {
    expect(stoppedAt.resumesAt).toBeUndefined();
  });

  test('the stopped run reads CommonplaceStatus=stopped', () => {
    expect(statusAtStop).toBe('stopped');
  });

  test('the launch that hit the limit is recorded as usage-limit, not as a numbered attempt', () => {
    expect(attemptsOf(stoppedAt, 'lens-memory')).toEqual([expect.objectContaining({ attempt: null, outcome: 'usage-limit' })]);
  });

  test('resume continues the run to completion, the limit spending no attempt', () => {
    expect(resumed.resumes).toBe(1);
    expect(outcome.status).toBe('completed');
    expect(outcome.progress.budgets['lens-memory']).toEqual({ used: 1, max: 3 });
  });

  test('after resume no completed launch is asked again', () => {
    const completedBefore = before.filter((entry) => entry.event === 'end' && entry.exitCode === 0);
    const startsAfter = after.slice(before.length).filter((entry) => entry.event === 'start');
    expect(startsAfter.filter((entry) => completedBefore.some((done) => done.rule === entry.rule))).toEqual([]);
    expectLaunches(starts, { 'lens-memory': 2 });
  });
});

test('a verdict that does not follow the verification protocol is a rejected candidate, re-asked with its findings', async () => {
  await withRun(
    env(),
    (clean) => ({
      'synthesis-verification': [
        writes('synthesis-verification', clean['synthesis-verification'].replace(/## Limits[\s\S]*$/, '')),
        writes('synthesis-verification', clean['synthesis-verification']),
      ],
    }),
    async ({ handle, ledger }) => {
      const outcome = await result(handle);
      expect(outcome.status).toBe('completed');
      expectLaunches(await startsByRole(ledger), { 'synthesis-verification': 2 });
      const [first, second] = attemptsOf(outcome.progress, 'synthesis-verification');
      expect(first?.outcome).toBe('rejected');
      expect(first?.findings.map((finding) => finding.rule)).toContain('verification/missing-section');
      expect([second?.kind, second?.outcome, second?.verdict?.refused]).toEqual(['re-ask', 'accepted', []]);
    },
  );
});

test('a changed environment at start stops the run with environment-changed; once restored, resume continues it', async () => {
  await withRun(
    env(),
    () => ({}),
    async ({ handle, ledger, prepared }) => {
      const stoppedAt = await progressUntil(handle, (progress) => progress.status === 'stopped');
      expect(stoppedAt.stops.map((stop) => stop.kind)).toEqual(['environment-changed']);
      expect(stoppedAt.stops[0]?.reason).toMatch(/HEAD of .* is [0-9a-f]{40}, but the run was prepared at/);
      expect(await readJson<{ problems: string[] }>(stoppedAt.stops[0]?.evidence ?? '')).toEqual(
        expect.objectContaining({ problems: expect.arrayContaining([expect.stringMatching(/HEAD/)]) }),
      );
      expect(await readLedger(ledger)).toEqual([]);

      await git(prepared.worktree, 'reset', '--quiet', '--hard', prepared.parameters.preparationCommit);
      await handle.executeUpdate('resume');
      expect((await result(handle)).status).toBe('completed');
      expectLaunches(await startsByRole(ledger), {});
    },
    {
      beforeStart: async (prepared) => {
        await git(prepared.worktree, 'commit', '--quiet', '--allow-empty', '-m', "an edit made in the run's worktree");
      },
    },
  );
});

test('a worker that writes outside its outputs stops the run with environment-changed, naming the path; the answer that revealed it is asked again once resumed', async () => {
  await withRun(
    env(),
    (clean) => ({
      'lens-learning': [
        writes('lens-learning', clean['lens-learning'], { writeOutside: { '../../../../../../kb/notes/stray.md': 'stray\n' } }),
        writes('lens-learning', clean['lens-learning']),
      ],
    }),
    async ({ handle, ledger, prepared }) => {
      // Restored once every lens's check is recorded: a check that looked at the worktree before the restore and
      // answered after the resume would name the stray again (docs/analysis.md, "Writes outside the outputs").
      const stoppedAt = await progressUntil(
        handle,
        (progress) => progress.status === 'stopped' && LENSES.every((lens) => attemptsOf(progress, lens).length === 1),
      );
      expect(stoppedAt.stops.map((stop) => [stop.kind, stop.disposition])).toEqual([['environment-changed', 'inspect']]);
      expect(stoppedAt.stops[0]?.reason).toMatch(
        /the worktree changed outside run state during the lens reports launches \(seen after lens-\w+ attempt 1\): kb\/notes\/stray\.md;/,
      );
      await rm(join(prepared.worktree, 'kb', 'notes', 'stray.md'));
      await handle.executeUpdate('resume');
      expect((await result(handle)).status).toBe('completed');
      // The lenses share the worktree: the check that first saw the stray write is the one not accepted.
      const starts = await startsByRole(ledger);
      expect(LENSES.reduce((sum, lens) => sum + starts[lens].length, 0)).toBe(4);
    },
  );
});

describe('a run whose runtime report exhausts its budget', () => {
  let outcome: AnalysisResult;
  let executionStatus: string;
  let resumeRefusal: string;
  let recorded: AnalysisProgress;
  let details: string;
  let runId: string;
  let workflowId: string;
  beforeAll(async () => {
    await withRun(
      env(),
      (clean) => ({ 'runtime-report': [writes('runtime-report', `${clean['runtime-report']}\nTBD.\n`)] }),
      async ({ handle, prepared }) => {
        runId = prepared.runId;
        workflowId = handle.workflowId;
        outcome = await result(handle);
        executionStatus = (await handle.describe()).status.name;
        resumeRefusal = await updateRejection(handle.executeUpdate('resume'));
        recorded = await readJson<AnalysisProgress>(join(prepared.runDir, 'run.json'));
        // A closed workflow answers the metadata query from its history.
        details = (await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata')).currentDetails ?? '';
      },
    );
  });

  test('completes exhausted: the workflow closes COMPLETED and its progress reads exhausted', () => {
    expect(outcome.status).toBe('exhausted');
    expect(executionStatus).toBe('COMPLETED');
    expect(outcome.progress.status).toBe('exhausted');
  });

  test('ends on a budget-exhausted stop naming the role, its last rejection and the findings', () => {
    expect([outcome.stop?.kind, outcome.stop?.disposition]).toEqual(['budget-exhausted', 'operator']);
    expect(outcome.stop?.reason).toMatch(/^runtime-report has used all 3 of its attempts; its last candidate was rejected: leaves `TBD` in the text/);
    expect(outcome.stop?.evidence).toMatch(/findings\.md$/);
  });

  test('refuses resume', () => {
    expect(resumeRefusal).toMatch(/workflow execution already completed|nothing to resume/i);
  });

  test('records its exhausted status and its stop in run.json', () => {
    expect(recorded.status).toBe('exhausted');
    expect(recorded.stops.map((stop) => stop.kind)).toEqual(['budget-exhausted']);
  });

  test('names exactly one next command, reset, in its current details, with the checkout by its ID and the namespace', () => {
    const commands = [...String(details).matchAll(/`(commonplace [^`]+)`/g)].map((match) => match[1]);
    const checkout = workflowId.split('/')[1];
    const namespace = env().namespace === 'default' ? '' : ` --namespace ${env().namespace}`;
    expect(commands).toEqual([`commonplace analysis reset ${runId} --kb ${checkout}${namespace}`]);
  });
});

test('a rejected re-ask whose prompt and inputs equal an answered one is not launched again: the recorded answer is checked again and spends the attempt', async () => {
  await withRun(
    env(),
    (clean) => ({ 'runtime-report': [writes('runtime-report', `${clean['runtime-report']}\nTBD.\n`)] }),
    async ({ handle, ledger }) => {
      const outcome = await result(handle);
      const attempts = attemptsOf(outcome.progress, 'runtime-report');
      expect(attempts.map((attempt) => [attempt.attempt, attempt.outcome, attempt.answeredBy !== undefined])).toEqual([
        [1, 'rejected', false],
        [2, 'rejected', false],
        [3, 'rejected', true],
      ]);
      expect(attempts[2]?.answeredBy).toBe(attempts[1]?.launchId);
      expectLaunches(await startsByRole(ledger), Object.fromEntries([...ROLES.slice(2).map((role) => [role, 0]), ['runtime-report', 2]]));
    },
  );
});
