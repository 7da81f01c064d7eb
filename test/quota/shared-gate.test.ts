import type { WorkflowHandle } from '@temporalio/client';
import type { AnalysisResult } from '../../src/analysis/progress.js';
import type { SweepProgress, SweepSummary } from '../../src/review/sweep-types.js';
import type { QuotaState } from '../../src/runs/quota.js';
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
  writes,
} from '../analysis/helpers.js';
import { readLedger } from '../helpers/fake.js';
import { firstTimerMs, quotaSweep, resumedByUpdate, usageLimit } from '../helpers/quota.js';
import { useTimeSkippingServer } from '../helpers/servers.js';
import { startSweep } from '../helpers/sweep.js';

const { env } = useTimeSkippingServer();

/** Each test runs a whole analysis and a sweep on a copy of the corpus: on a busy machine that takes longer than the suite's default allows. */
const WHOLE_RUNS_MS = 480_000;

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

/**
 * One account for an analysis and an auto-resumed sweep (one scenario): the analysis's roles, its boundary held until
 * the test releases it, then the sweep's pair, which meets a usage limit resetting at `resetEpoch` and then passes.
 */
async function sharedAccount(resetEpoch: number) {
  const prepared = await prepareToy(await toyCheckout());
  const clean = cleanMembers(prepared.runId, await sourceIdentity());
  const setup = await quotaSweep(env(), ({ release }) => [
    ...roleRules(clean, { boundary: [writes('boundary', clean.boundary, { waitForFile: release })] }),
    { match: 'criterion = sentence/framing-mismatch', attempts: [usageLimit(resetEpoch), { review: 'pass' }] },
  ]);
  /** Starts the analysis and, once its boundary launch is held, the sweep. */
  const start = async (analysisAutoResume: boolean) => {
    const analysis = await startAnalysis(env(), analysisInput(prepared, setup.profilesFile, setup.fakeEnv, analysisAutoResume), false);
    await until(
      'the analysis boundary launch',
      () => readLedger(setup.ledger),
      (entries) => entries.some((entry) => entry.event === 'waiting'),
    );
    return { analysis, sweep: await startSweep(env(), setup.input, { workflowId: setup.workflowId }) };
  };
  return { ...setup, start };
}

const sweepProgressUntil = (sweep: WorkflowHandle, what: string, predicate: (progress: SweepProgress) => boolean) =>
  until(what, () => sweep.query<SweepProgress>('progress'), predicate);

/**
 * Both results: waiting for them lets the test server skip to the reset. First every activity the stops started (their
 * records) must have ended, or the skipped hour would time them out; then one result at a time: each unlocks time
 * skipping once, and two at once would unbalance the server's lock count.
 */
async function results(analysis: WorkflowHandle, sweep: WorkflowHandle): Promise<[AnalysisResult, SweepSummary]> {
  const inFlight = async (handle: WorkflowHandle) => (await handle.describe()).raw.pendingActivities?.length ?? 0;
  await until(
    'the paused runs to have no activity in flight',
    async () => (await inFlight(analysis)) + (await inFlight(sweep)),
    (count) => count === 0,
  );
  const analysisOutcome = (await analysis.result()) as AnalysisResult;
  return [analysisOutcome, (await sweep.result()) as SweepSummary];
}

test(
  'a usage limit hit in one sweep pauses a concurrently running analysis on the same account; both go on by themselves at the reset',
  async () => {
    const resetEpoch = Math.floor(Date.now() / 1000) + 3600;
    const resetAt = new Date(resetEpoch * 1000).toISOString();
    const setup = await sharedAccount(resetEpoch);
    const { account } = setup;

    await (
      await setup.worker(env())
    ).runUntil(async () => {
      const { analysis, sweep } = await setup.start(true);
      const closed = await until(
        'the gate to close',
        async () => (await setup.gate.query(quotaStateQuery)).state,
        (state: QuotaState) => state.status === 'closed-until',
      );
      expect(closed).toMatchObject({ status: 'closed-until', resetAt });
      const sweepStopped = await sweepProgressUntil(sweep, 'the sweep to stop', (progress) => progress.status === 'stopped');
      expect(sweepStopped.stops[0]).toMatchObject({ kind: 'usage-limit', resetAt, account });

      // The analysis's launch in flight finishes; its next launch would go against the closed gate, so it stops instead.
      await setup.releaseLaunch();
      const paused = await progressUntil(analysis, (progress) => progress.status === 'stopped');
      expect(paused.stops[0]).toMatchObject({ kind: 'usage-limit', resetAt, account });
      expect(paused.stops[0]?.reason).toContain(`not launched`);
      expect(paused.resumesAt).toBe(new Date(resetEpoch * 1000 + 60_000).toISOString());

      const [analysisOutcome, sweepSummary] = await results(analysis, sweep);
      expect(analysisOutcome.status).toBe('completed');
      expect(analysisOutcome.progress.resumes).toBe(1);
      expect(sweepSummary.status).toBe('completed');
      expect(sweepSummary.counts.written.pass).toBe(1);

      // Nothing was launched against the closed gate: the analysis's runtime report ran once, after the reset.
      const byRole = await startsByRole(setup.ledger);
      expect(byRole['runtime-report']).toHaveLength(1);
      expect((await setup.starts()).filter((entry) => entry.rule === ROLES.length)).toHaveLength(2); // the sweep's pair: the limit, then the answer
      const history = await analysis.fetchHistory();
      expect(firstTimerMs(history)).toBeGreaterThan(3500_000);
      expect(resumedByUpdate(history)).toBe(false);
      expect((await setup.gate.query(quotaStateQuery)).state).toMatchObject({ status: 'open', openedBy: 'reset' });
    });
  },
  WHOLE_RUNS_MS,
);

test(
  'an operator resuming a run stopped on the gate opens it: an auto-resumed sweep on the account goes on at once, before its reset',
  async () => {
    const setup = await sharedAccount(Math.floor(Date.now() / 1000) + 5 * 3600);
    await (
      await setup.worker(env())
    ).runUntil(async () => {
      const { analysis, sweep } = await setup.start(false);
      await sweepProgressUntil(sweep, 'the sweep to stop', (progress) => progress.status === 'stopped');
      await setup.releaseLaunch();
      const paused = await progressUntil(analysis, (progress) => progress.status === 'stopped');
      expect(paused.stops[0]).toMatchObject({ kind: 'usage-limit', account: setup.account });
      expect(paused.resumesAt).toBeUndefined();

      await analysis.executeUpdate('resume', { args: [{}] });
      expect((await setup.gate.query(quotaStateQuery)).state).toMatchObject({ status: 'open', openedBy: 'operator' });
      const resumed = await sweepProgressUntil(sweep, 'the sweep to go on', (progress) => progress.status !== 'stopped');
      expect(resumed.resumes).toBe(1);

      const [analysisOutcome, sweepSummary] = await results(analysis, sweep);
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
