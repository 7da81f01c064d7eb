import { join } from 'node:path';
import type { AnalysisResult } from '../../src/analysis/progress.js';
import { formatInspect } from '../../src/client/analysis/analysis-format.js';
import { testWorker } from '../helpers/temporal.js';
import { analysisInput, prepareToy, progressUntil, scratch, startAnalysis, startsByRole, toyCheckout, toyProfiles, toyScenario, writes } from './helpers.js';
import { useTimeSkippingServer } from '../helpers/servers.js';

const { env } = useTimeSkippingServer();

const eventMs = (time: { seconds?: unknown; nanos?: number | null } | null | undefined) =>
  Number(time?.seconds ?? 0) * 1000 + Math.floor((time?.nanos ?? 0) / 1e6);

test('with --auto-resume, a usage limit with a known reset time resumes by itself after the reset, on a durable timer, and inspect says when', async () => {
  const checkout = await toyCheckout();
  const prepared = await prepareToy(checkout);
  const dir = await scratch();
  const resetEpoch = Math.floor(Date.now() / 1000) + 3600;
  const { env: fakeEnv, ledger } = await toyScenario(dir, prepared, (clean) => ({
    'memory-profile': [{ usageLimit: `Claude AI usage limit reached|${resetEpoch}` }, writes('memory-profile', clean['memory-profile'])],
  }));
  const worker = await testWorker(env(), { stateDir: join(dir, 'state') });
  await worker.runUntil(async () => {
    const handle = await startAnalysis(env(), analysisInput(prepared, await toyProfiles(dir), fakeEnv, true), false);
    const stopped = await progressUntil(handle, (progress) => progress.status === 'stopped');
    const expected = new Date(resetEpoch * 1000 + 60_000).toISOString();
    expect(stopped.resumesAt).toBe(expected);
    expect(formatInspect(stopped, 'live')).toContain(`resumes by itself at ${expected}`);

    const outcome = (await handle.result()) as AnalysisResult;
    expect(outcome.status).toBe('completed');
    expect(outcome.progress.resumes).toBe(1);
    expect((await startsByRole(ledger))['memory-profile']).toHaveLength(2);

    const events = (await handle.fetchHistory()).events ?? [];
    const started = events.find((event) => event.timerStartedEventAttributes);
    const fired = events.find((event) => event.timerFiredEventAttributes);
    expect(fired).toBeDefined();
    expect(JSON.parse(Buffer.from(started?.userMetadata?.summary?.data ?? []).toString())).toBe(
      `resume after the usage limit resets (${new Date(resetEpoch * 1000).toISOString()})`,
    );
    // The timer ran to the reset time plus a minute, in workflow time: nobody resumed it.
    expect(eventMs(fired?.eventTime) - eventMs(started?.eventTime)).toBeGreaterThan(3500_000);
    expect(events.some((event) => event.workflowExecutionUpdateAcceptedEventAttributes)).toBe(false);
  });
});
