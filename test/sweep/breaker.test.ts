// The breaker for systematic failure, as a pure function over settled units (src/review/breaker.ts).
import { describe, expect, test } from '@jest/globals';
import type { Finding } from '../../src/kb/findings.js';
import { armedBreaker, failedCheck, releaseHeld, settleUnit, type BreakerState, type SettledUnit } from '../../src/review/breaker.js';
import { STOP_RULES } from '../../src/runs/stop.js';

const finding = (rule: string, message = `the ${rule} check refused it`): Finding => ({ file: 'review.md', rule, severity: 'fail', message });
const failed = (item: string, rule = 'result-line', launches = 3, message?: string): SettledUnit<string> => ({
  outcome: 'failed',
  name: `kb/notes/${item}.md × prose/x`,
  launches,
  findings: [finding(rule, message)],
  item,
});
const accepted: SettledUnit<string> = { outcome: 'accepted' };

/** Settles units in order, collecting what each step records and the stops it makes. */
function settleAll(units: SettledUnit<string>[], window = 3) {
  let state: BreakerState<string> = armedBreaker();
  const recorded: string[] = [];
  const stops = [];
  for (const unit of units) {
    const step = settleUnit(state, unit, window);
    state = step.state;
    recorded.push(...step.record);
    if (step.stop) stops.push(step.stop);
  }
  return { state, recorded, stops };
}

describe('the breaker for systematic failure', () => {
  test('the first three units failing result-line with a window of three trip it once: their 9 launches, the rule and the first unit as the example are named', () => {
    const { state, recorded, stops } = settleAll([failed('a', 'result-line', 3, 'the last line `fake output` is not a result line'), failed('b'), failed('c')]);
    expect(state.status).toBe('tripped');
    expect(state.held).toEqual(['a', 'b', 'c']);
    expect(recorded).toEqual([]);
    expect(stops).toHaveLength(1);
    expect(stops[0]).toMatchObject({
      kind: 'systematic-failure',
      disposition: 'operator',
      rule: 'result-line',
      example: 'kb/notes/a.md × prose/x: the last line `fake output` is not a result line',
      units: 3,
      launches: 9,
    });
    expect(stops[0]!.reason).toBe(
      'the first 3 units of the batch all failed the result-line check (9 launches spent), e.g. kb/notes/a.md × prose/x: the last line `fake output` is not a result line; ' +
        'the rest was not asked — fix the profile, harness or criterion, then resume: these units are asked again and the breaker judges afresh',
    );
  });

  test('two failures short of the window are held, not recorded, and not a stop', () => {
    const { state, recorded, stops } = settleAll([failed('a'), failed('b')]);
    expect(state).toEqual({
      status: 'armed',
      units: 2,
      launches: 6,
      rule: 'result-line',
      example: 'kb/notes/a.md × prose/x: the result-line check refused it',
      held: ['a', 'b'],
    });
    expect(recorded).toEqual([]);
    expect(stops).toEqual([]);
  });

  test('an accepted unit among the first turns it off: the held failures become problems then, later ones at once, and nothing trips', () => {
    const { state, recorded, stops } = settleAll([failed('a'), failed('b'), accepted, failed('c'), failed('d'), failed('e')]);
    expect(state.status).toBe('off');
    expect(recorded).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(stops).toEqual([]);
  });

  test('a unit failing another check turns it off, recording the held ones and itself', () => {
    const { state, recorded, stops } = settleAll([failed('a'), failed('b', 'launch-timed-out'), failed('c'), failed('d')]);
    expect(state.status).toBe('off');
    expect(recorded).toEqual(['a', 'b', 'c', 'd']);
    expect(stops).toEqual([]);
  });

  test('once tripped, units still in flight that fail are held too; accepted ones change nothing', () => {
    const { state, recorded, stops } = settleAll([failed('a'), failed('b'), failed('c'), accepted, failed('d', 'launch-incomplete')]);
    expect(state.status).toBe('tripped');
    expect(state.held).toEqual(['a', 'b', 'c', 'd']);
    expect(state.units).toBe(3);
    expect(recorded).toEqual([]);
    expect(stops).toHaveLength(1);
  });

  test("at the batch's end an armed breaker releases its held units as problems; a tripped one keeps them to hand back", () => {
    const armed = settleAll([failed('a'), failed('b')]).state;
    expect(releaseHeld(armed)).toEqual({ state: { ...armed, held: [] }, record: ['a', 'b'] });
    const tripped = settleAll([failed('a'), failed('b'), failed('c')]).state;
    expect(releaseHeld(tripped)).toEqual({ state: tripped, record: [] });
  });

  test('the default window is ten units', () => {
    let state: BreakerState<string> = armedBreaker();
    const trips: number[] = [];
    for (let unit = 1; unit <= 12; unit += 1) {
      const step = settleUnit(state, failed(`n${unit}`, 'result-line', 1));
      state = step.state;
      if (step.stop) trips.push(unit);
    }
    expect(trips).toEqual([10]);
    expect(state).toMatchObject({ status: 'tripped', units: 10, launches: 10 });
    expect(state.held).toHaveLength(12);
  });

  test.each([
    [[finding('result-line')], 'result-line'],
    [[finding('result-line'), finding('result-line')], 'result-line'],
    [[finding('result-line'), finding('bundle-section')], 'bundle-section + result-line'],
    [[], 'no accepted output'],
  ])('the check a unit failed with findings %j is %j', (findings, check) => {
    expect(failedCheck(findings)).toBe(check);
  });

  test('a systematic-failure stop is resumed, with no timer', () => {
    expect(STOP_RULES['systematic-failure']).toEqual({ by: 'resume', timer: false });
  });
});
