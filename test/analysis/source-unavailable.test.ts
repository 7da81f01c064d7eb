// An analysis whose source cannot be acquired stops with `source-unavailable` (the operator's stop), not
// `environment-changed`; once the source is reachable again, resume goes on and the run completes.
import { cp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { AnalysisResult } from '../../src/analysis/progress.js';
import { readLedger, scratch } from '../helpers/fake.js';
import { useDevServer } from '../helpers/servers.js';
import { testWorker } from '../helpers/temporal.js';
import { analysisInput, prepareToy, progressUntil, readJson, sourceFixture, startAnalysis, toyCheckout, toyProfiles, toyScenario } from './helpers.js';

const { env } = useDevServer();

test('a source directory that is gone stops the run with source-unavailable, naming it; once it is back, resume completes the run', async () => {
  const checkout = await toyCheckout();
  const dir = await scratch();
  const source = join(dir, 'source');
  await cp(sourceFixture, source, { recursive: true });
  const prepared = await prepareToy(checkout, { source });
  const { env: fakeEnv, ledger } = await toyScenario(dir, prepared);
  await rm(source, { recursive: true });
  const worker = await testWorker(env(), { stateDir: join(dir, 'state') });
  await worker.runUntil(async () => {
    const handle = await startAnalysis(env(), analysisInput(prepared, await toyProfiles(dir), fakeEnv));
    const stopped = await progressUntil(handle, (progress) => progress.status === 'stopped');
    expect(stopped.stops.map((stop) => stop.kind)).toEqual(['source-unavailable']);
    expect(stopped.stops[0]?.reason).toBe(
      `the source cannot be acquired: source directory ${source} does not exist; make it reachable and resume, or prepare a new run`,
    );
    expect(await readJson<{ problems: string[] }>(stopped.stops[0]!.evidence!)).toEqual(
      expect.objectContaining({ ok: false, problems: [`source directory ${source} does not exist`] }),
    );
    expect(await readLedger(ledger)).toEqual([]);

    await cp(sourceFixture, source, { recursive: true });
    await handle.executeUpdate('resume');
    expect(((await handle.result()) as AnalysisResult).status).toBe('completed');
  });
});
