import { join } from 'node:path';
import type { AnalysisProgress, AnalysisResult } from '../../src/analysis/progress.js';
import { runRecordFile } from '../../src/analysis/run-dir.js';
import { waitFor } from '../helpers/fake.js';
import { testWorker } from '../helpers/temporal.js';
import { useDevServer } from '../helpers/servers.js';
import {
  analysisInput,
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
} from './helpers.js';

const { env } = useDevServer();

test('an analysis with --max-cost stops with spend-limit before a launch would pass the cap; a resume needs a raised cap and then goes on', async () => {
  const checkout = await toyCheckout();
  const prepared = await prepareToy(checkout);
  const dir = await scratch();
  // Every launch reports $0.10: the boundary and the runtime report spend $0.20, and a lens report would take the run to $0.30.
  const { env: fakeEnv, ledger } = await toyScenario(dir, prepared, (clean) =>
    Object.fromEntries(ROLES.map((role) => [role, [writes(role, clean[role], { costUsd: 0.1, tokens: { input: 1000, output: 200 } })]])),
  );
  const worker = await testWorker(env(), { stateDir: join(dir, 'state') });
  await worker.runUntil(async () => {
    const handle = await startAnalysis(env(), { ...analysisInput(prepared, await toyProfiles(dir), fakeEnv), maxCostUsd: 0.25 });
    const stopped = await progressUntil(handle, (progress) => progress.status === 'stopped');
    expect(stopped.stops.map((stop) => [stop.kind, stop.disposition])).toEqual([['spend-limit', 'operator']]);
    expect(stopped.spend).toMatchObject({ capUsd: 0.25, launches: 2, unpriced: 0, tokens: { input: 2000, output: 400, cacheRead: 0, cacheWrite: 0 } });
    expect(stopped.spend!.costUsd).toBeCloseTo(0.2, 9);
    expect(stopped.spend!.costUsd).toBeLessThanOrEqual(0.25);
    const starts = await startsByRole(ledger);
    expect(ROLES.filter((role) => starts[role].length > 0)).toEqual(['boundary', 'runtime-report']);
    // run.json carries the spend and the stop.
    // run.json is written by the activity that records the stop: wait for it, not for a moment.
    await waitFor(
      'run.json to record the stop',
      async () => (await readJson<AnalysisProgress>(runRecordFile(prepared.runDir)).catch(() => undefined))?.stops[0]?.kind === 'spend-limit',
      60_000,
    );
    const record = await readJson<AnalysisProgress>(runRecordFile(prepared.runDir));
    expect(record.stops[0]?.kind).toBe('spend-limit');
    expect(record.spend?.costUsd).toBeCloseTo(0.2, 9);

    expect(await updateRejection(handle.executeUpdate('resume', { args: [{}] }))).toMatch(
      /stopped at its spend cap, having spent \$0\.2000: resume it with a higher --max-cost \(at least \$0\.30\)/,
    );
    expect(await updateRejection(handle.executeUpdate('resume', { args: [{ maxCostUsd: 0.25 }] }))).toMatch(
      /not above the \$0\.2500 cap it stopped at \(give at least \$0\.30\)/,
    );
    await handle.executeUpdate('resume', { args: [{ maxCostUsd: 5 }] });
    const result = (await handle.result()) as AnalysisResult;
    expect(result.status).toBe('completed');
    expect(result.progress.spend).toMatchObject({ capUsd: 5, launches: ROLES.length });
    expect(result.progress.spend!.costUsd).toBeCloseTo(0.1 * ROLES.length, 9);
    // Nothing launched before the stop was launched again.
    const after = await startsByRole(ledger);
    expect(ROLES.map((role) => after[role].length)).toEqual(ROLES.map(() => 1));
  });
});
