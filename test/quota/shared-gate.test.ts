import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import type { AnalysisResult } from '../../src/analysis/progress.js';
import type { SweepInput, SweepProgress, SweepSummary } from '../../src/review/sweep-types.js';
import { quotaAccount, type QuotaState } from '../../src/runs/quota.js';
import { quotaGateId } from '../../src/runs/workflow-ids.js';
import { TASK_QUEUE } from '../../src/search-attributes.js';
import { quotaStateQuery } from '../../src/workflows/quota-gate.js';
import {
  analysisInput,
  cleanMembers,
  ROLES,
  prepareToy,
  progressUntil,
  roleRules,
  sourceIdentity,
  startAnalysis,
  startsByRole,
  toyCheckout,
  toyProfiles,
  writes,
} from '../analysis/helpers.js';
import { fakeScenario, readLedger, scratch } from '../helpers/fake.js';
import { corpusCopy, someNotes } from '../helpers/kb.js';
import { useTimeSkippingServer } from '../helpers/servers.js';
import { testWorker, uniqueId } from '../helpers/temporal.js';

const { env } = useTimeSkippingServer();

/** Each test runs a whole analysis and a sweep on a copy of the corpus: on a busy machine that takes longer than the suite's default allows. */
const WHOLE_RUNS_MS = 480_000;

const eventMs = (time: { seconds?: unknown; nanos?: number | null } | null | undefined) =>
  Number(time?.seconds ?? 0) * 1000 + Math.floor((time?.nanos ?? 0) / 1e6);

/** Polls until the predicate holds (a query, the ledger): tests wait for states, never for durations. */
async function until<T>(what: string, read: () => Promise<T | undefined>, predicate: (value: T) => boolean, timeoutMs = 180_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read().catch(() => undefined);
    if (value !== undefined && predicate(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: last ${JSON.stringify(value)}`);
    await new Promise((done) => setTimeout(done, 100));
  }
}

test(
  'a usage limit hit in one sweep pauses a concurrently running analysis on the same account; both go on by themselves at the reset',
  async () => {
    const checkout = await corpusCopy();
    const notes = await someNotes(1);
    const toy = await toyCheckout();
    const prepared = await prepareToy(toy);
    const dir = await scratch();
    const release = join(dir, 'release-boundary');
    const resetEpoch = Math.floor(Date.now() / 1000) + 3600;
    const resetAt = new Date(resetEpoch * 1000).toISOString();
    const clean = cleanMembers(prepared.runId, await sourceIdentity());
    // One scenario, so one account: the analysis's roles (its boundary held until the test releases it), then the sweep's pair.
    const { env: fakeEnv, ledger } = await fakeScenario(dir, [
      ...roleRules(clean, { boundary: [writes('boundary', clean.boundary, { waitForFile: release })] }),
      { match: 'criterion = sentence/framing-mismatch', attempts: [{ usageLimit: `Claude AI usage limit reached|${resetEpoch}` }, { review: 'pass' }] },
    ]);
    const profilesFile = await toyProfiles(dir);
    const account = quotaAccount({ name: 'fake', harness: 'fake', env: fakeEnv });
    const sweepInput: SweepInput = {
      checkout,
      notes,
      gates: ['sentence/framing-mismatch'],
      criteria: ['gates'],
      grouping: 'pair',
      profile: 'fake',
      concurrency: 1,
      batchSize: 10,
      autoResume: true,
      profilesFile,
      env: fakeEnv,
    };
    const worker = await testWorker(env(), { stateDir: join(dir, 'state') });

    await worker.runUntil(async () => {
      const analysis = await startAnalysis(env(), analysisInput(prepared, profilesFile, fakeEnv, true), false);
      await until(
        'the analysis boundary launch',
        () => readLedger(ledger),
        (entries) => entries.some((entry) => entry.event === 'waiting'),
      );

      const sweep: WorkflowHandle = await env().client.workflow.start('gateSweep', {
        taskQueue: TASK_QUEUE,
        workflowId: `gates/${uniqueId('quota-test').replace(/\//g, '-')}`,
        args: [sweepInput],
      });
      const gate = env().client.workflow.getHandle(quotaGateId(account));
      const closed = await until(
        'the gate to close',
        async () => (await gate.query(quotaStateQuery)).state,
        (state: QuotaState) => state.status === 'closed-until',
      );
      expect(closed).toMatchObject({ status: 'closed-until', resetAt });
      const sweepStopped = await until(
        'the sweep to stop',
        () => sweep.query<SweepProgress>('progress'),
        (progress) => progress.status === 'stopped',
      );
      expect(sweepStopped.stops[0]).toMatchObject({ kind: 'usage-limit', resetAt, account });

      // The analysis's launch in flight finishes; its next launch would go against the closed gate, so it stops instead.
      await writeFile(release, '');
      const paused = await progressUntil(analysis, (progress) => progress.status === 'stopped');
      expect(paused.stops[0]).toMatchObject({ kind: 'usage-limit', resetAt, account });
      expect(paused.stops[0]?.reason).toContain(`not launched`);
      expect(paused.resumesAt).toBe(new Date(resetEpoch * 1000 + 60_000).toISOString());

      // Waiting for the results lets the test server skip to the reset: first every activity the stops
      // started (their records) must have ended, or the skipped hour would time them out.
      const inFlight = async (handle: WorkflowHandle) => (await handle.describe()).raw.pendingActivities?.length ?? 0;
      await until(
        'the paused runs to have no activity in flight',
        async () => (await inFlight(analysis)) + (await inFlight(sweep)),
        (count) => count === 0,
      );
      // One result at a time: each unlocks time skipping once, and two at once would unbalance the server's lock count.
      const analysisOutcome = (await analysis.result()) as AnalysisResult;
      const sweepSummary = (await sweep.result()) as SweepSummary;
      expect(analysisOutcome.status).toBe('completed');
      expect(analysisOutcome.progress.resumes).toBe(1);
      expect(sweepSummary.status).toBe('completed');
      expect(sweepSummary.counts.written.pass).toBe(1);

      // Nothing was launched against the closed gate: the analysis's runtime report ran once, after the reset.
      const byRole = await startsByRole(ledger);
      expect(byRole['runtime-report']).toHaveLength(1);
      expect((await readLedger(ledger)).filter((entry) => entry.event === 'start' && entry.rule === ROLES.length)).toHaveLength(2); // the sweep's pair: the limit, then the answer
      const events = (await analysis.fetchHistory()).events ?? [];
      const started = events.find((event) => event.timerStartedEventAttributes);
      const fired = events.find((event) => event.timerFiredEventAttributes);
      expect(fired).toBeDefined();
      expect(eventMs(fired?.eventTime) - eventMs(started?.eventTime)).toBeGreaterThan(3500_000);
      expect(events.some((event) => event.workflowExecutionUpdateAcceptedEventAttributes)).toBe(false);
      expect((await gate.query(quotaStateQuery)).state).toMatchObject({ status: 'open', openedBy: 'reset' });
    });
  },
  WHOLE_RUNS_MS,
);

test(
  'an operator resuming a run stopped on the gate opens it: an auto-resumed sweep on the account goes on at once, before its reset',
  async () => {
    const checkout = await corpusCopy();
    const notes = await someNotes(1);
    const toy = await toyCheckout();
    const prepared = await prepareToy(toy);
    const dir = await scratch();
    const release = join(dir, 'release-boundary');
    const resetEpoch = Math.floor(Date.now() / 1000) + 5 * 3600;
    const clean = cleanMembers(prepared.runId, await sourceIdentity());
    const { env: fakeEnv, ledger } = await fakeScenario(dir, [
      ...roleRules(clean, { boundary: [writes('boundary', clean.boundary, { waitForFile: release })] }),
      { match: 'criterion = sentence/framing-mismatch', attempts: [{ usageLimit: `Claude AI usage limit reached|${resetEpoch}` }, { review: 'pass' }] },
    ]);
    const profilesFile = await toyProfiles(dir);
    const account = quotaAccount({ name: 'fake', harness: 'fake', env: fakeEnv });
    const sweepInput: SweepInput = {
      checkout,
      notes,
      gates: ['sentence/framing-mismatch'],
      criteria: ['gates'],
      grouping: 'pair',
      profile: 'fake',
      concurrency: 1,
      batchSize: 10,
      autoResume: true,
      profilesFile,
      env: fakeEnv,
    };
    const worker = await testWorker(env(), { stateDir: join(dir, 'state') });

    await worker.runUntil(async () => {
      const analysis = await startAnalysis(env(), analysisInput(prepared, profilesFile, fakeEnv, false), false);
      await until(
        'the analysis boundary launch',
        () => readLedger(ledger),
        (entries) => entries.some((entry) => entry.event === 'waiting'),
      );
      const sweep: WorkflowHandle = await env().client.workflow.start('gateSweep', {
        taskQueue: TASK_QUEUE,
        workflowId: `gates/${uniqueId('quota-test').replace(/\//g, '-')}`,
        args: [sweepInput],
      });
      await until(
        'the sweep to stop',
        () => sweep.query<SweepProgress>('progress'),
        (progress) => progress.status === 'stopped',
      );
      await writeFile(release, '');
      const paused = await progressUntil(analysis, (progress) => progress.status === 'stopped');
      expect(paused.stops[0]).toMatchObject({ kind: 'usage-limit', account });
      expect(paused.resumesAt).toBeUndefined();

      await analysis.executeUpdate('resume', { args: [{}] });
      const gate = env().client.workflow.getHandle(quotaGateId(account));
      expect((await gate.query(quotaStateQuery)).state).toMatchObject({ status: 'open', openedBy: 'operator' });
      const resumed = await until(
        'the sweep to go on',
        () => sweep.query<SweepProgress>('progress'),
        (progress) => progress.status !== 'stopped',
      );
      expect(resumed.resumes).toBe(1);

      // Waiting for the results lets the test server skip to the reset: first every activity the stops
      // started (their records) must have ended, or the skipped hour would time them out.
      const inFlight = async (handle: WorkflowHandle) => (await handle.describe()).raw.pendingActivities?.length ?? 0;
      await until(
        'the paused runs to have no activity in flight',
        async () => (await inFlight(analysis)) + (await inFlight(sweep)),
        (count) => count === 0,
      );
      // One result at a time: each unlocks time skipping once, and two at once would unbalance the server's lock count.
      const analysisOutcome = (await analysis.result()) as AnalysisResult;
      const sweepSummary = (await sweep.result()) as SweepSummary;
      expect(analysisOutcome.status).toBe('completed');
      expect(sweepSummary.status).toBe('completed');
      // The sweep went on when the gate opened, not at its timer: the timer was cancelled, never fired.
      const events = (await sweep.fetchHistory()).events ?? [];
      expect(events.some((event) => event.timerStartedEventAttributes)).toBe(true);
      expect(events.some((event) => event.timerFiredEventAttributes)).toBe(false);
    });
  },
  WHOLE_RUNS_MS,
);
