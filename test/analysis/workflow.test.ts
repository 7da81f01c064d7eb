import type { WorkflowHandle } from '@temporalio/client';
import { createHash } from 'node:crypto';
import { access, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Manifest } from '../../src/analysis/manifest.js';
import type { AnalysisProgress, AnalysisResult } from '../../src/analysis/progress.js';
import { CommonplaceStatus } from '../../src/search-attributes.js';
import { readLedger, waitFor } from '../helpers/fake.js';
import { testWorker } from '../helpers/temporal.js';
import {
  analysisInput,
  git,
  member,
  prepareToy,
  progressUntil,
  readJson,
  ROLES,
  scratch,
  startAnalysis,
  startsByRole,
  toyCheckout,
  toyProfiles,
  toyScenario,
  updateRejection,
  writes,
  type Role,
} from './helpers.js';
import type { FakeAttempt } from '../helpers/fake.js';
import type { PreparedRun } from '../../src/activities/analysis/prepare.js';
import { useDevServer } from '../helpers/servers.js';

const { env } = useDevServer();

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const launchFile = (prepared: PreparedRun, role: string, launch: number, file: string) => join(prepared.runDir, 'launches', role, String(launch), file);

interface Started {
  prepared: PreparedRun;
  ledger: string;
  handle: WorkflowHandle;
  dir: string;
}

type Overrides = Parameters<typeof toyScenario>[2];

/** Prepares a toy run, writes its scenario, and starts its workflow; `body` runs while a test worker serves it. */
async function withRun<T>(
  overrides: Overrides,
  body: (run: Started) => Promise<T>,
  options: { beforeStart?: (prepared: PreparedRun) => Promise<void> } = {},
): Promise<T> {
  const checkout = await toyCheckout();
  const prepared = await prepareToy(checkout);
  const dir = await scratch();
  const { env: fakeEnv, ledger } = await toyScenario(dir, prepared, overrides);
  await options.beforeStart?.(prepared);
  const worker = await testWorker(env(), { stateDir: join(dir, 'state') });
  return worker.runUntil(async () => {
    const handle = await startAnalysis(env(), analysisInput(prepared, await toyProfiles(dir), fakeEnv));
    return body({ prepared, ledger, handle, dir });
  });
}

/** The run ID the clean members carry. */
const runOf = (clean: Record<Role, string>) => /run: (\S+)/.exec(clean.boundary)?.[1] ?? '';
const result = async (handle: WorkflowHandle) => (await handle.result()) as AnalysisResult;
const attemptsOf = (progress: AnalysisProgress, role: string) => progress.attempts.filter((attempt) => attempt.role === role);

function expectLaunches(starts: Record<Role, unknown[]>, expected: Partial<Record<Role, number>>): void {
  expect(Object.fromEntries(ROLES.map((role) => [role, starts[role].length]))).toEqual(Object.fromEntries(ROLES.map((role) => [role, expected[role] ?? 1])));
}

describe('a clean run', () => {
  let run: Started;
  let outcome: AnalysisResult;
  let currentDetails: string | undefined;
  beforeAll(async () => {
    await withRun(
      () => ({}),
      async (started) => {
        run = started;
        outcome = await result(started.handle);
        currentDetails = (await started.handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata')).currentDetails;
      },
    );
  });

  test('completes with the artifact published', () => {
    expect(outcome.status).toBe('completed');
    expect(outcome.disposition).toBe('published');
  });

  test('every role is asked once, and each answer is accepted on its one attempt', async () => {
    expectLaunches(await startsByRole(run.ledger), {});
    expect(Object.values(outcome.progress.budgets).every((budget) => budget.used === 1)).toBe(true);
    expect(outcome.progress.attempts.every((attempt) => attempt.kind === 'write' && attempt.outcome === 'accepted')).toBe(true);
  });

  test('the manifest lists every member with the SHA-256 of its file in the artifact and the model its launch used', async () => {
    const manifest = await readJson<Manifest>(outcome.manifest!);
    expect(manifest.status).toBe('published');
    expect(Object.keys(manifest.files)).toHaveLength(ROLES.length);
    for (const [path, digest] of Object.entries(manifest.files)) {
      expect([path, sha256(await readFile(join(run.prepared.runDir, 'artifact', path)))]).toEqual([path, digest]);
    }
    expect(manifest.members.map((entry) => [entry.role, entry.model, entry.check])).toEqual(ROLES.map((role) => [role, 'fake-model-1', 'passed']));
    expect(
      manifest.members
        .filter((entry) => entry.verified === 'accepted')
        .map((entry) => entry.role)
        .sort(),
    ).toEqual(['runtime-report', 'lens-control', 'lens-memory', 'lens-learning', 'reconciliation', 'memory-profile', 'synthesis'].sort());
  });

  test('the Web UI summary names the system and the run', async () => {
    expect(await (await run.handle.describe()).staticSummary()).toBe(`analysis of toy: run ${run.prepared.runId}`);
  });

  test('the Web UI shows the status as a search attribute and the published run in the current details', async () => {
    expect((await run.handle.describe()).typedSearchAttributes.get(CommonplaceStatus)).toBe('completed');
    expect(currentDetails).toMatch(/^\*\*published\*\* — run AAS-\S+ of toy/);
  });

  test('the Web UI names each launch in the history by its role and attempt', async () => {
    const events = (await run.handle.fetchHistory()).events ?? [];
    const summaries = events
      .filter((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'launch')
      .map((event) => JSON.parse(Buffer.from(event.userMetadata?.summary?.data ?? []).toString()) as string);
    expect(summaries.sort()).toEqual(ROLES.map((role) => `${role} attempt 1`).sort());
  });

  test('each prompt is the instruction, its name = value lines, then the rendered prompt section', async () => {
    const prompt = await readFile(launchFile(run.prepared, 'runtime-report', 1, 'prompt.md'), 'utf8');
    expect(prompt).toMatch(/^# Runtime report\n\nDescribe how the system runs/);
    expect(prompt).toContain(`\n\njob = runtime-report\nrole = runtime-report\nrun = ${run.prepared.runId}\nsystem = toy\ntype = kb/types/toy-report.md\n`);
    expect(prompt).toContain('\ninput-boundary = artifact/boundary.md\noutput = runtime-report.md\nartifact = artifact\n');
    expect(prompt).toContain('The boundary, artifact/boundary.md, says what is in scope');
    expect(prompt).not.toMatch(/\{[a-z-]+\}|\[findings\]|previous answer was rejected/);
    expect(await readFile(launchFile(run.prepared, 'runtime-report', 1, 'artifact/boundary.md'), 'utf8')).toContain('# Boundary of the toy system');
  });
});

test('the boundary says out-of-scope: the run ends early, kept local, and nothing else is asked', async () => {
  await withRun(
    (clean) => ({ boundary: [writes('boundary', clean.boundary.replace('disposition: published', 'disposition: out-of-scope'))] }),
    async ({ handle, ledger, prepared }) => {
      const outcome = await result(handle);
      expect([outcome.status, outcome.disposition]).toEqual(['completed', 'out-of-scope']);
      expectLaunches(await startsByRole(ledger), Object.fromEntries(ROLES.filter((role) => role !== 'boundary').map((role) => [role, 0])));
      expect(Object.keys((await readJson<Manifest>(outcome.manifest!)).files)).toEqual(['boundary.md']);
      await expect(access(join(prepared.runDir, 'artifact', 'runtime-report.md'))).rejects.toThrow();
    },
  );
});

describe('a runtime report rejected once by a check', () => {
  let outcome: AnalysisResult;
  let starts: Record<Role, unknown[]>;
  let prompt: string;
  let findings: string;
  beforeAll(async () => {
    await withRun(
      (clean) => ({
        'runtime-report': [writes('runtime-report', `${clean['runtime-report']}\nTODO: check the loop.\n`), writes('runtime-report', clean['runtime-report'])],
      }),
      async ({ handle, ledger, prepared }) => {
        outcome = await result(handle);
        starts = await startsByRole(ledger);
        prompt = await readFile(launchFile(prepared, 'runtime-report', 2, 'prompt.md'), 'utf8');
        findings = await readFile(launchFile(prepared, 'runtime-report', 2, 'findings.md'), 'utf8');
      },
    );
  });

  test('its first answer is recorded as rejected with the finding of its rule', () => {
    const [first] = attemptsOf(outcome.progress, 'runtime-report');
    expect([first?.attempt, first?.outcome, first?.findings.map((finding) => finding.rule)]).toEqual([1, 'rejected', ['no-open-markers']]);
  });

  test('it is re-asked once and accepted, and the run completes', () => {
    expect(outcome.status).toBe('completed');
    expectLaunches(starts, { 'runtime-report': 2 });
    const [, second] = attemptsOf(outcome.progress, 'runtime-report');
    expect([second?.attempt, second?.kind, second?.outcome]).toEqual([2, 're-ask', 'accepted']);
  });

  test('the rejection spends one attempt of its budget', () => {
    expect(outcome.progress.budgets['runtime-report']).toEqual({ used: 2, max: 3 });
  });

  test('the re-ask prompt hands over the findings file and says the previous answer was rejected', () => {
    expect(prompt).toContain('\nfindings = findings.md\n');
    expect(prompt).toContain("Your previous answer was rejected by the run's checks; findings.md lists every finding.");
  });

  test('the findings file lists each finding by line and the records the role may cite', () => {
    expect(findings).toMatch(/line \d+: leaves `TODO` in the text/);
    expect(findings).toContain('Records you may cite, as the members you were handed declare them:\n\n- boundary: SRC-1, SRC-2');
  });
});

test('the verifier refuses two authors: both are corrected, every report re-checked, reconciliation re-asked because its inputs changed, and the verifier asked again accepts', async () => {
  await withRun(
    (clean) => ({
      'report-verification': [
        writes(
          'report-verification',
          member.verification(runOf(clean), [
            'runtime-report: the loop is said to read once, which src/main.ts does not show',
            'lens-memory: "keeps nothing" needs a source',
          ]),
        ),
        writes('report-verification', clean['report-verification']),
      ],
      'runtime-report': [
        writes('runtime-report', clean['runtime-report']),
        writes('runtime-report', clean['runtime-report'].replace('reads its input once (SRC-2)', 'reads in.txt whole (SRC-2)')),
      ],
      'lens-memory': [
        writes('lens-memory', clean['lens-memory']),
        writes(
          'lens-memory',
          clean['lens-memory'].replace('one pass over one input (SRC-2)', 'one pass that writes out.txt and reads nothing back (SRC-1, SRC-2)'),
        ),
      ],
      reconciliation: [writes('reconciliation', clean.reconciliation), writes('reconciliation', clean.reconciliation)],
    }),
    async ({ handle, ledger, prepared }) => {
      const outcome = await result(handle);
      expect(outcome.status).toBe('completed');
      expectLaunches(await startsByRole(ledger), { 'runtime-report': 2, 'lens-memory': 2, reconciliation: 2, 'report-verification': 2 });
      const progress = outcome.progress;
      for (const role of ['runtime-report', 'lens-memory']) {
        expect(attemptsOf(progress, role).map((attempt) => [attempt.kind, attempt.outcome, attempt.reason])).toEqual([
          ['write', 'accepted', undefined],
          ['correction', 'accepted', 'refused by report-verification'],
        ]);
        expect(await readFile(launchFile(prepared, role, 2, 'prompt.md'), 'utf8')).toContain('\nrefusal = refusal.md\n');
      }
      expect(await readFile(launchFile(prepared, 'runtime-report', 2, 'refusal.md'), 'utf8')).toContain(
        '- the loop is said to read once, which src/main.ts does not show',
      );
      expect(await readFile(launchFile(prepared, 'lens-memory', 2, 'refusal.md'), 'utf8')).not.toContain('src/main.ts does not show');
      const recheck = progress.checks.filter((check) => check.kind === 're-check');
      expect(recheck.map((check) => [check.role, check.passed]).sort()).toEqual(
        ['lens-control', 'lens-learning', 'lens-memory', 'reconciliation', 'runtime-report'].map((role) => [role, true]),
      );
      const reconciliation = attemptsOf(progress, 'reconciliation');
      expect(reconciliation.map((attempt) => [attempt.kind, attempt.reason])).toEqual([
        ['write', undefined],
        ['fresh', 'its inputs changed: runtime-report, lens-memory'],
      ]);
      const freshPrompt = await readFile(launchFile(prepared, 'reconciliation', 2, 'prompt.md'), 'utf8');
      expect(freshPrompt).toContain('\nchanged = runtime-report, lens-memory\n');
      expect(freshPrompt).not.toMatch(/^(findings|refusal) = /m);
      const verifier = attemptsOf(progress, 'report-verification');
      expect(verifier.map((attempt) => [attempt.kind, attempt.verdict?.refused])).toEqual([
        ['write', ['runtime-report', 'lens-memory']],
        ['fresh', []],
      ]);
      for (const role of ['runtime-report', 'lens-memory', 'reconciliation']) {
        const current = progress.members[role];
        expect(current?.verified).toEqual({ by: 'report-verification', outcome: 'accepted', sha256: current?.sha256 });
      }
    },
  );
});

/** The verifier's launches keyed as the workflow keys its asks: the prompt and the bytes of every member handed. */
async function verifierKeys(ledger: string): Promise<string[]> {
  const starts = (await startsByRole(ledger))['report-verification'];
  return Promise.all(
    starts.map(async (entry) => {
      const handed = await Promise.all(
        ['runtime-report', 'lens-control', 'lens-memory', 'lens-learning', 'reconciliation'].map(async (role) =>
          sha256(await readFile(join(entry.cwd ?? '', 'artifact', `${role}.md`)).catch(() => Buffer.from(''))),
        ),
      );
      return `${entry.promptSha256}:${handed.join(',')}`;
    }),
  );
}

test('a correction with the exact bytes the verifier refused is rejected by its check before the verifier is asked again', async () => {
  await withRun(
    (clean) => ({
      'report-verification': [
        writes('report-verification', member.verification(runOf(clean), ['runtime-report: the loop is said to read once, which src/main.ts does not show'])),
        writes('report-verification', clean['report-verification']),
      ],
      'runtime-report': [
        writes('runtime-report', clean['runtime-report']),
        writes('runtime-report', clean['runtime-report']),
        writes('runtime-report', clean['runtime-report'].replace('reads its input once (SRC-2)', 'reads in.txt whole (SRC-2)')),
      ],
      reconciliation: [writes('reconciliation', clean.reconciliation), writes('reconciliation', clean.reconciliation)],
    }),
    async ({ handle, ledger }) => {
      const outcome = await result(handle);
      expect(outcome.status).toBe('completed');
      const attempts = attemptsOf(outcome.progress, 'runtime-report');
      expect(attempts.map((attempt) => [attempt.kind, attempt.outcome])).toEqual([
        ['write', 'accepted'],
        ['correction', 'rejected'],
        ['correction', 'accepted'],
      ]);
      expect(attempts[1]?.findings.map((finding) => finding.rule)).toContain('unchanged-correction');
      const starts = (await readLedger(ledger)).filter((entry) => entry.event === 'start');
      const order = starts.map((entry) => ROLES[entry.rule]);
      expect(order.lastIndexOf('report-verification')).toBeGreaterThan(order.lastIndexOf('runtime-report'));
      const keys = await verifierKeys(ledger);
      expect(keys).toHaveLength(2);
      expect(new Set(keys).size).toBe(2);
    },
  );
});

test('corrections that leave every refused subject as it was refused end the run exhausted, and the verifier is launched once', async () => {
  await withRun(
    (clean) => ({
      'report-verification': [
        writes('report-verification', member.verification(runOf(clean), ['runtime-report: the loop is said to read once, which src/main.ts does not show'])),
      ],
      'runtime-report': [writes('runtime-report', clean['runtime-report'])],
    }),
    async ({ handle, ledger }) => {
      const outcome = await result(handle);
      expect(outcome.status).toBe('exhausted');
      expect(outcome.stop?.kind).toBe('budget-exhausted');
      expect(outcome.stop?.reason).toMatch(/^runtime-report has used all 3 of its attempts/);
      expect(attemptsOf(outcome.progress, 'runtime-report').map((attempt) => [attempt.kind, attempt.outcome])).toEqual([
        ['write', 'accepted'],
        ['correction', 'rejected'],
        ['correction', 'rejected'],
      ]);
      expect(await verifierKeys(ledger)).toHaveLength(1);
      expect((await startsByRole(ledger))['report-verification']).toHaveLength(1);
    },
  );
});

test('the re-check correction branch: a report that passed fails against a corrected sibling and is re-asked with the findings', async () => {
  const quiet = (lens: 'memory' | 'learning') => ({ text: `Through the ${lens} lens the loop is one pass over one input (SRC-2).` });
  await withRun(
    (clean) => {
      const run = runOf(clean);
      return {
        'lens-memory': [writes('lens-memory', member.lens(run, 'memory', quiet('memory')))],
        'lens-learning': [writes('lens-learning', member.lens(run, 'learning', quiet('learning')))],
        'report-verification': [
          writes('report-verification', member.verification(run, ['runtime-report: the component is the main function, not a loop'])),
          writes('report-verification', clean['report-verification']),
        ],
        'runtime-report': [
          writes('runtime-report', clean['runtime-report']),
          writes('runtime-report', member['runtime-report'](run, { record: 'RT-CMP-main' })),
        ],
        'lens-control': [writes('lens-control', clean['lens-control']), writes('lens-control', member.lens(run, 'control', { cites: 'RT-CMP-main' }))],
        reconciliation: [writes('reconciliation', clean.reconciliation), writes('reconciliation', clean.reconciliation)],
      };
    },
    async ({ handle, ledger, prepared }) => {
      const outcome = await result(handle);
      expect(outcome.status).toBe('completed');
      expectLaunches(await startsByRole(ledger), { 'runtime-report': 2, 'lens-control': 2, reconciliation: 2, 'report-verification': 2 });
      const recheck = outcome.progress.checks.filter((check) => check.kind === 're-check');
      const rounds = [...new Set(recheck.map((check) => check.round))];
      expect(rounds).toHaveLength(2);
      const failed = recheck.filter((check) => !check.passed);
      expect(failed.map((check) => check.role)).toEqual(['lens-control']);
      expect(failed[0]?.findings[0]?.message).toMatch(/cited record RT-CMP-loop does not exist/);
      expect(recheck.filter((check) => check.round === rounds[1]).every((check) => check.passed)).toBe(true);
      expect(attemptsOf(outcome.progress, 'lens-control').map((attempt) => [attempt.kind, attempt.outcome])).toEqual([
        ['write', 'accepted'],
        ['re-ask', 'accepted'],
      ]);
      const findings = await readFile(launchFile(prepared, 'lens-control', 2, 'findings.md'), 'utf8');
      expect(findings).toMatch(/RT-CMP-loop/);
      expect(findings).toContain('- runtime-report: RT-CMP-main');
      expect(attemptsOf(outcome.progress, 'reconciliation')[1]?.reason).toBe('its inputs changed: runtime-report, lens-control');
    },
  );
});

test('the three lens reports run concurrently: all three are launched before any may finish', async () => {
  // Each lens launch is held open until the test releases it, once all three are waiting: only launches
  // that run at the same time can all be waiting at once.
  const release = join(await scratch(), 'release');
  const held = (role: Role, text: string): FakeAttempt[] => [writes(role, text, { waitForFile: release })];
  await withRun(
    (clean) => ({
      'lens-control': held('lens-control', clean['lens-control']),
      'lens-memory': held('lens-memory', clean['lens-memory']),
      'lens-learning': held('lens-learning', clean['lens-learning']),
    }),
    async ({ handle, ledger }) => {
      const during = await progressUntil(handle, (progress) => progress.inFlight.length === 3);
      expect(during.inFlight.map((launch) => launch.role).sort()).toEqual(['lens-control', 'lens-learning', 'lens-memory']);
      expect(await updateRejection(handle.executeUpdate('resume'))).toMatch(/is running at lens reports: there is nothing to resume/);
      const lensRules = [2, 3, 4];
      await waitFor(
        'all three lens launches waiting',
        async () => (await readLedger(ledger)).filter((entry) => entry.event === 'waiting' && lensRules.includes(entry.rule)).length === 3,
        120_000,
      );
      await writeFile(release, '');
      expect((await result(handle)).status).toBe('completed');
    },
  );
});

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
    (clean) => ({
      'lens-learning': [
        writes('lens-learning', clean['lens-learning'], { writeOutside: { '../../../../../../kb/notes/stray.md': 'stray\n' } }),
        writes('lens-learning', clean['lens-learning']),
      ],
    }),
    async ({ handle, ledger, prepared }) => {
      const stoppedAt = await progressUntil(handle, (progress) => progress.status === 'stopped');
      expect(stoppedAt.stops.map((stop) => [stop.kind, stop.disposition])).toEqual([['environment-changed', 'inspect']]);
      expect(stoppedAt.stops[0]?.reason).toMatch(
        /the worktree changed outside run state during the lens reports launches \(seen after lens-\w+ attempt 1\): kb\/notes\/stray\.md;/,
      );
      await rm(join(prepared.worktree, 'kb', 'notes', 'stray.md'));
      await handle.executeUpdate('resume');
      expect((await result(handle)).status).toBe('completed');
      // The lenses share the worktree: the check that first saw the stray write is the one not accepted.
      const starts = await startsByRole(ledger);
      expect(starts['lens-control'].length + starts['lens-memory'].length + starts['lens-learning'].length).toBe(4);
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
