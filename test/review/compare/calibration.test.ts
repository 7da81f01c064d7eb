import { readFile } from 'node:fs/promises';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, test } from '@jest/globals';
import { parseProfiles, ProfileError } from '../../../src/harness/profiles.js';
import { calibrationFileName, parseCalibrationRecord, recordFromReport, staleness } from '../../../src/review/compare/calibration.js';
import { buildReport } from '../../../src/review/compare/report.js';
import { LABELS_ROUTE } from '../../../src/review/compare/types.js';
import { schemaFile } from '../../helpers/json-shape.js';
import { CHEAP, GATE, REFERENCE, ROUTES, SAMPLE, VERDICTS } from './fixture.js';

const HASH = 'a'.repeat(64);
const report = buildReport({ runId: 'compare-1', sample: SAMPLE, routes: ROUTES, verdicts: VERDICTS, labels: [] });
const kept = () => {
  const record = recordFromReport({
    report,
    criterion: GATE,
    reference: REFERENCE,
    criterionHash: HASH,
    profileHashes: { claude: 'b'.repeat(64), 'anthropic-haiku': 'c'.repeat(64), fake: 'd'.repeat(64), unrelated: 'e'.repeat(64) },
    at: '2026-01-01T00:00:00.000Z',
  });
  if (typeof record === 'string') throw new Error(record);
  return record;
};

describe('calibration records', () => {
  test('a record carries each route κ against the reference, its cost per pair and the hashes of the profiles it ran under', () => {
    const record = kept();
    expect(
      record.routes.map((r) => [
        r.route,
        r.n,
        r.kappa === null ? null : Number(r.kappa.toFixed(6)),
        r.costUsdPerPair === null ? null : Number(r.costUsdPerPair.toFixed(6)),
      ]),
    ).toEqual([
      [CHEAP, 20, 0.6, 0.002],
      ['fake:pair', 20, 0, 0],
    ]);
    expect(Object.keys(record.profileHashes)).toEqual(['anthropic-haiku', 'claude', 'fake']);
  });

  test('a record validates against docs/schemas/calibration-record.v1.schema.json and its own check', async () => {
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    (addFormats as unknown as (a: Ajv2020) => void)(ajv);
    const validate = ajv.compile(JSON.parse(await readFile(schemaFile('calibration-record', 1), 'utf8')) as object);
    const record = JSON.parse(JSON.stringify(kept())) as unknown;
    expect(validate(record)).toBe(true);
    expect(parseCalibrationRecord(record, `kb/reports/calibration/${calibrationFileName(GATE)}`).ok).toBe(true);
    expect(validate({ ...(record as object), routes: [] })).toBe(false);
  });

  test('a record in a file named for another criterion is refused naming the right name', () => {
    expect(parseCalibrationRecord(kept(), 'kb/reports/calibration/other.json')).toEqual({
      ok: false,
      problems: ['criterion frontmatter/title-gate is kept in frontmatter_title-gate.json, not other.json'],
    });
  });

  test('a record against labels is made only where labelled pairs exist', () => {
    expect(recordFromReport({ report, criterion: GATE, reference: LABELS_ROUTE, criterionHash: HASH, profileHashes: {}, at: '2026-01-01T00:00:00Z' })).toBe(
      `criterion ${GATE}: no route was scored against labels on any pair`,
    );
  });

  test.each([
    { case: 'the same criterion and profiles: fresh', criterionHash: HASH, change: {} as Record<string, string>, reasons: [] },
    {
      case: 'a changed criterion',
      criterionHash: 'f'.repeat(64),
      change: {} as Record<string, string>,
      reasons: [`criterion ${GATE} changed since compare run compare-1 (hash aaaaaaaaaaaa then, ffffffffffff now)`],
    },
    { case: 'a gone criterion', criterionHash: undefined, change: {} as Record<string, string>, reasons: [`criterion ${GATE} is gone`] },
    {
      case: 'a profile defined differently',
      criterionHash: HASH,
      change: { fake: '0'.repeat(64) },
      reasons: ['profile fake is defined differently since compare run compare-1'],
    },
  ])('staleness: $case', ({ criterionHash, change, reasons }) => {
    const record = kept();
    expect(staleness(record, { criterionHash, profileHashes: { ...record.profileHashes, ...change } })).toEqual(reasons);
  });
});

describe('calibrated-routes in the profiles file', () => {
  const profiles = (routing: unknown) => ({
    profiles: { claude: { harness: 'claude', 'calibrated-routes': routing }, 'anthropic-haiku': { harness: 'anthropic', model: 'claude-haiku-4-5' } },
  });

  test('a profile declares its reference, threshold and candidates', () => {
    const parsed = parseProfiles(profiles({ reference: 'claude:pair', 'min-kappa': 0.8, candidates: ['anthropic-haiku:pair'] }), 'p.yaml');
    expect(parsed.get('claude')?.calibratedRoutes).toEqual({ reference: 'claude:pair', minKappa: 0.8, candidates: ['anthropic-haiku:pair'] });
  });

  test('the threshold defaults to 0.7', () => {
    expect(parseProfiles(profiles({ reference: 'labels', candidates: ['anthropic-haiku:bundle'] }), 'p.yaml').get('claude')?.calibratedRoutes?.minKappa).toBe(
      0.7,
    );
  });

  test.each([
    {
      routing: { reference: 'claude:pair', candidates: ['nobody:pair'] },
      message: 'p.yaml: profiles.claude.calibrated-routes.candidates: nobody:pair names no profile of this file',
    },
    { routing: { reference: 'claude:pairs', candidates: ['anthropic-haiku:pair'] }, message: 'p.yaml: profiles.claude.calibrated-routes.reference: a route' },
    { routing: { reference: 'claude:pair', candidates: [] }, message: 'p.yaml: profiles.claude.calibrated-routes.candidates' },
  ])('a bad calibrated-routes is refused naming the file and key: $message', ({ routing, message }) => {
    expect(() => parseProfiles(profiles(routing), 'p.yaml')).toThrow(ProfileError);
    expect(() => parseProfiles(profiles(routing), 'p.yaml')).toThrow(message);
  });
});
