import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { routingFile, routingLines, type SweepRouting } from '../../src/activities/review/sweep/routing.js';
import { criterionHashNow, profileHashes, writeCalibrationRecord } from '../../src/review/compare/calibration-files.js';
import type { KeptCalibrationRecord } from '../../src/review/compare/types.js';
import { parseResultFile } from '../../src/review/result-file.js';
import type { SweepSummary } from '../../src/review/sweep-types.js';
import { useDevServer } from '../helpers/servers.js';
import { executeSweep, fakeSweep } from '../helpers/sweep.js';
import { runCli } from '../helpers/cli.js';
import { expectShape } from '../helpers/json-shape.js';

const { env, address } = useDevServer();

const gates = ['frontmatter/title-as-claim', 'frontmatter/description-discrimination', 'frontmatter/claim-strength'];

describe('a sweep whose profile declares calibrated-routes', () => {
  let routing: SweepRouting;
  let profileOf: Map<string, string>;
  let summary: SweepSummary;
  let criteria: string[];
  let launches: number;
  let pairs: number;
  let inspected: { text: string; json: string };

  beforeAll(async () => {
    const sweep = await fakeSweep([{ attempts: [{ review: 'pass' }] }], {
      notes: 2,
      gates,
      profiles: {
        fake: {
          harness: 'fake',
          timeout: '1m',
          attempts: 3,
          'calibrated-routes': { reference: 'fake:pair', 'min-kappa': 0.7, candidates: ['fake-cheap:pair'] },
        },
        'fake-cheap': { harness: 'fake', timeout: '1m', attempts: 2 },
      },
    });
    const { checkout, notes, profilesFile } = sweep;
    const applicable = await sweep.pairs();
    pairs = applicable.length;
    criteria = [...new Set(applicable.map((pair) => pair.criterion))].sort();
    if (criteria.length < 3) throw new Error(`the corpus notes ${notes.join(', ')} apply only ${criteria.join(', ')}`);
    const hashes = profileHashes(checkout, profilesFile);
    const record = async (criterion: string, criterionHash?: string): Promise<KeptCalibrationRecord> => ({
      version: 1,
      criterion,
      criterionHash: criterionHash ?? ((await criterionHashNow(checkout, criterion)) as string),
      runId: 'compare-demo',
      at: '2026-01-01T00:00:00Z',
      reference: 'fake:pair',
      routes: [{ route: 'fake-cheap:pair', n: 30, raw: 0.93, kappa: 0.8, kappaInterval: [0.62, 0.94], costUsdPerPair: 0.001 }],
      profileHashes: { fake: hashes.fake as string, 'fake-cheap': hashes['fake-cheap'] as string },
    });
    // The first criterion is backed by a fresh record, the second's record is stale (its criterion changed since), the third has none.
    await writeCalibrationRecord(checkout, await record(criteria[0] as string));
    await writeCalibrationRecord(checkout, await record(criteria[1] as string, 'f'.repeat(64)));

    const input = sweep.input({ concurrency: 2, batchSize: 50 });
    const { runId } = input;
    summary = await (await sweep.worker(env())).runUntil(executeSweep(env(), input));
    routing = JSON.parse(await readFile(routingFile(join(checkout, 'kb/reports/state/review/runs', runId)), 'utf8')) as SweepRouting;
    profileOf = new Map();
    for (const pair of await sweep.pairs()) {
      const parsed = parseResultFile(await readFile(join(checkout, pair.resultPath), 'utf8'), pair.resultPath);
      if (!parsed.ok) throw new Error(`${pair.resultPath}: ${JSON.stringify(parsed)}`);
      profileOf.set(`${pair.note} ${pair.criterion}`, parsed.record.profile);
    }
    const inspect = async (...extra: string[]) =>
      String((await runCli(['review', 'inspect', runId, '--kb', checkout, ...extra], { env: { TEMPORAL_ADDRESS: address() } })).stdout);
    inspected = { text: await inspect(), json: await inspect('--json') };
    launches = (await sweep.starts()).length;
  });

  test('the criterion a fresh record backs is asked under the cheaper candidate, the others under the profile', () => {
    expect(summary.counts.written.pass).toBe(pairs);
    expect(launches).toBe(pairs);
    for (const [key, profile] of profileOf) expect([key, profile]).toEqual([key, key.endsWith(` ${criteria[0]}`) ? 'fake-cheap' : 'fake']);
  });

  test('routing.json says per criterion which route and why, refusing the stale record with its reason', () => {
    expect(routing.choices.map((choice) => [choice.criterion, choice.route, choice.basis])).toEqual([
      [criteria[0], 'fake-cheap:pair', 'record'],
      [criteria[1], 'fake:pair', 'default'],
      [criteria[2], 'fake:pair', 'default'],
    ]);
    const lines = routingLines(routing);
    expect(lines[0]).toContain('κ 0.80 ≥ 0.7 against fake:pair on 30 pairs in run compare-demo, $0.0010 per pair');
    expect(lines[1]).toContain(
      `calibration record of run compare-demo is stale and refused as a basis: criterion ${criteria[1]} changed since compare run compare-demo`,
    );
    expect(lines[2]).toContain('no calibration record for this criterion');
  });

  test('review inspect shows the routing, in its text and its JSON', () => {
    expect(inspected.text).toContain("routing (fake's calibrated-routes: κ ≥ 0.7 against fake:pair)");
    for (const line of routingLines(routing)) expect(inspected.text).toContain(`  ${line}`);
    expect(expectShape(inspected.json, 'review-inspect').routing).toEqual(routing);
  });
});
