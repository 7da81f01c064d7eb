import { describe, expect, test } from '@jest/globals';
import { chooseRoute, type ChoiceInput, type RecordState } from '../../../src/review/compare/choose.js';
import type { KeptCalibrationRecord } from '../../../src/review/compare/types.js';

const routing = { reference: 'claude:pair', minKappa: 0.7, candidates: ['anthropic-haiku:pair', 'openai-mini:pair', 'anthropic-sonnet:pair'] };

const measured = (route: string, kappa: number | null, costUsdPerPair: number | null) => ({
  route,
  n: 40,
  raw: 0.9,
  kappa,
  kappaInterval: null,
  costUsdPerPair,
});

const record = (routes: KeptCalibrationRecord['routes'], reference = 'claude:pair'): KeptCalibrationRecord => ({
  version: 1,
  criterion: 'frontmatter/title-gate',
  criterionHash: 'a'.repeat(64),
  runId: 'compare-1',
  at: '2026-01-01T00:00:00Z',
  reference,
  routes,
  profileHashes: {},
});

const read = (kept: KeptCalibrationRecord, stale: string[] = []): RecordState => ({
  state: 'read',
  file: 'kb/reports/calibration/frontmatter_title-gate.json',
  record: kept,
  stale,
});

const input = (found: RecordState, overrides: Partial<ChoiceInput> = {}): ChoiceInput => ({
  criterion: 'frontmatter/title-gate',
  profile: 'claude',
  grouping: 'pair',
  batch: false,
  routing,
  record: found,
  ...overrides,
});

describe('choosing a criterion route from its calibration record', () => {
  test.each([
    {
      case: 'the cheapest of two candidates that reach the threshold is chosen',
      found: read(
        record([measured('anthropic-haiku:pair', 0.75, 0.002), measured('openai-mini:pair', 0.8, 0.001), measured('anthropic-sonnet:pair', 0.9, 0.01)]),
      ),
      route: 'openai-mini:pair',
      profile: 'openai-mini',
      basis: 'record',
      why: /κ 0\.80 ≥ 0\.7 against claude:pair on 40 pairs in run compare-1, \$0\.0010 per pair, cheapest of 3 passing/,
    },
    {
      case: 'a cheaper candidate below the threshold is passed over',
      found: read(record([measured('anthropic-haiku:pair', 0.69, 0.0001), measured('anthropic-sonnet:pair', 0.72, 0.01)])),
      route: 'anthropic-sonnet:pair',
      profile: 'anthropic-sonnet',
      basis: 'record',
      why: /κ 0\.72 ≥ 0\.7/,
    },
    {
      case: 'κ exactly at the threshold passes',
      found: read(record([measured('anthropic-haiku:pair', 0.7, 0.002)])),
      route: 'anthropic-haiku:pair',
      profile: 'anthropic-haiku',
      basis: 'record',
      why: /κ 0\.70 ≥ 0\.7/,
    },
    {
      case: 'a priced candidate goes before an unpriced one',
      found: read(record([measured('anthropic-haiku:pair', 0.8, null), measured('openai-mini:pair', 0.8, 0.05)])),
      route: 'openai-mini:pair',
      profile: 'openai-mini',
      basis: 'record',
      why: /\$0\.0500 per pair/,
    },
    {
      case: 'no candidate reaching the threshold keeps the profile route and lists each',
      found: read(record([measured('anthropic-haiku:pair', 0.5, 0.002), measured('openai-mini:pair', null, 0.001)])),
      route: 'claude:pair',
      profile: 'claude',
      basis: 'default',
      why: /no candidate reaches κ 0\.7 against claude:pair in run compare-1: anthropic-haiku:pair κ 0\.50 < 0\.7; openai-mini:pair κ undefined < 0\.7; anthropic-sonnet:pair not in the record/,
    },
    {
      case: 'no record keeps the profile route',
      found: { state: 'absent' } as RecordState,
      route: 'claude:pair',
      profile: 'claude',
      basis: 'default',
      why: /^no calibration record for this criterion$/,
    },
    {
      case: 'a stale record is refused as a basis, with its reason',
      found: read(record([measured('anthropic-haiku:pair', 0.95, 0.002)]), ['criterion frontmatter/title-gate changed since compare run compare-1']),
      route: 'claude:pair',
      profile: 'claude',
      basis: 'default',
      why: /calibration record of run compare-1 is stale and refused as a basis: criterion frontmatter\/title-gate changed since compare run compare-1/,
    },
    {
      case: 'an invalid record is not a basis',
      found: { state: 'invalid', file: 'kb/reports/calibration/x.json', problems: ['routes: Required'] } as RecordState,
      route: 'claude:pair',
      profile: 'claude',
      basis: 'default',
      why: /x\.json is invalid \(routes: Required\)/,
    },
    {
      case: 'a record against another reference is not a basis',
      found: read(record([measured('anthropic-haiku:pair', 0.95, 0.002)], 'labels')),
      route: 'claude:pair',
      profile: 'claude',
      basis: 'default',
      why: /measures against labels, the profile asks for claude:pair/,
    },
  ])('$case', ({ found, route, profile, basis, why }) => {
    const choice = chooseRoute(input(found));
    expect(choice).toMatchObject({ criterion: 'frontmatter/title-gate', route, profile, basis });
    expect(choice.why).toMatch(why);
  });

  test('a candidate measured under another grouping is not used for this sweep grouping', () => {
    const found = read(record([measured('anthropic-haiku:pair', 0.9, 0.002)]));
    const choice = chooseRoute(input(found, { grouping: 'bundle' }));
    expect(choice).toMatchObject({ route: 'claude:bundle', basis: 'default' });
    expect(choice.why).toContain('anthropic-haiku:pair was measured as pair, this sweep asks bundle');
  });
});
