import { access, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Manifest } from '../../src/analysis/manifest.js';
import type { AnalysisResult } from '../../src/analysis/progress.js';
import { CommonplaceStatus } from '../../src/search-attributes.js';
import { readLedger, waitFor } from '../helpers/fake.js';
import {
  attemptsOf,
  launchFile,
  expectLaunches,
  result,
  withRun,
  type Started,
  progressUntil,
  readJson,
  ROLES,
  scratch,
  startsByRole,
  updateRejection,
  writes,
  type Role,
} from './helpers.js';
import type { FakeAttempt } from '../helpers/fake.js';
import { sha256 } from '../../src/fs/digest.js';
import { useDevServer } from '../helpers/servers.js';

// The clean run, a check's rejection, the boundary's early end and the lenses' concurrency. The report
// verifier's refusals and their corrections are test/analysis/workflow-corrections.test.ts.
const { env } = useDevServer();

describe('a clean run', () => {
  let run: Started;
  let outcome: AnalysisResult;
  let currentDetails: string | undefined;
  beforeAll(async () => {
    await withRun(
      env(),
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
    env(),
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
      env(),
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

test('the three lens reports run concurrently: all three are launched before any may finish', async () => {
  // Each lens launch is held open until the test releases it, once all three are waiting: only launches
  // that run at the same time can all be waiting at once.
  const release = join(await scratch(), 'release');
  const held = (role: Role, text: string): FakeAttempt[] => [writes(role, text, { waitForFile: release })];
  await withRun(
    env(),
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
