import { describe, expect, test } from '@jest/globals';
import {
  isClosed,
  limitSeen,
  newer,
  openedByOperator,
  openGate,
  opensAt,
  probeBackoffMs,
  quotaAccount,
  timePassed,
  type QuotaState,
} from '../../src/runs/quota.js';
import { quotaGateId } from '../../src/runs/workflow-ids.js';

const t0 = Date.parse('2026-12-03T10:00:00Z');
const min = 60_000;
const at = (ms: number) => new Date(ms).toISOString();
const limit = (resetAt: string | null, launchId = 'run/role/1') => ({ reason: 'usage limit reached', launchId, resetAt });

describe('the account a profile draws from', () => {
  test.each([
    ['a profile without an account key is an account of its own', { name: 'claude-lean', harness: 'claude' }, 'claude/claude-lean'],
    ['profiles naming one account share it', { name: 'claude-lean', harness: 'claude', account: 'team' }, 'claude/team'],
    ['the harness is part of the account', { name: 'x', harness: 'codex', account: 'team' }, 'codex/team'],
    [
      'a model-API profile without an account key draws from its key: the default variable',
      { name: 'anthropic-haiku', harness: 'anthropic' },
      'anthropic/key:ANTHROPIC_API_KEY',
    ],
    [
      'another model on the same key is the same account',
      { name: 'anthropic-sonnet', harness: 'anthropic', apiKeyEnv: 'ANTHROPIC_API_KEY' },
      'anthropic/key:ANTHROPIC_API_KEY',
    ],
    ['another key variable is another account', { name: 'anthropic-sonnet', harness: 'anthropic', apiKeyEnv: 'TEAM_B_KEY' }, 'anthropic/key:TEAM_B_KEY'],
    [
      "the endpoint is part of a key's account",
      { name: 'openai-mini', harness: 'openai', baseUrl: 'https://proxy.example/v1/' },
      'openai/key:OPENAI_API_KEY@proxy.example/v1',
    ],
    ["an account key still names a model-API profile's account", { name: 'openai-mini', harness: 'openai', account: 'team' }, 'openai/team'],
  ])('%s', (_title, profile, account) => {
    expect(quotaAccount(profile)).toBe(account);
    expect(quotaGateId(account)).toBe(`quota/${account}`);
  });

  test('a profile played by the fake harness through a scenario is an account per scenario', () => {
    const one = quotaAccount({ name: 'fake', harness: 'fake', env: { COMMONPLACE_FAKE_SCENARIO: 'a/scenario.json' } });
    const two = quotaAccount({ name: 'fake', harness: 'fake', env: { COMMONPLACE_FAKE_SCENARIO: 'b/scenario.json' } });
    expect(one).toMatch(/^fake\/fake~[0-9a-f]{8}$/);
    expect(two).not.toBe(one);
    expect(quotaAccount({ name: 'fake', harness: 'fake', env: { COMMONPLACE_FAKE_SCENARIO: 'a/scenario.json' } })).toBe(one);
  });
});

describe('the quota gate state', () => {
  const open = openGate('claude/team');

  test('a limit with a reset time closes the gate until the reset, and it opens a minute past it', () => {
    const closed = limitSeen(open, limit(at(t0 + 60 * min)), t0);
    expect(closed).toMatchObject({ status: 'closed-until', resetAt: at(t0 + 60 * min), version: 1, launchId: 'run/role/1' });
    expect(isClosed(closed, t0 + 60 * min)).toBe(true);
    expect(opensAt(closed)).toBe(t0 + 61 * min);
    expect(timePassed(closed, t0 + 60 * min)).toBe(closed);
    expect(timePassed(closed, t0 + 61 * min)).toMatchObject({ status: 'open', version: 2, openedBy: 'reset', step: 0 });
  });

  test('a later reset extends a closed gate; an earlier one, or one already past, changes nothing', () => {
    const closed = limitSeen(open, limit(at(t0 + 60 * min)), t0);
    expect(limitSeen(closed, limit(at(t0 + 30 * min)), t0 + min)).toBe(closed);
    expect(limitSeen(closed, limit(at(t0 + 90 * min)), t0 + min)).toMatchObject({ status: 'closed-until', resetAt: at(t0 + 90 * min), version: 2 });
    expect(limitSeen(open, limit(at(t0 - 10 * min)), t0)).toBe(open);
  });

  test('a limit without a reset time closes the gate for a probe after 15 minutes', () => {
    const closed = limitSeen(open, limit(null), t0);
    expect(closed).toMatchObject({ status: 'closed-unknown', probeAt: at(t0 + 15 * min), step: 1, version: 1 });
    expect(isClosed(closed, t0 + 14 * min)).toBe(true);
    expect(isClosed(closed, t0 + 15 * min)).toBe(false);
  });

  test('probes that keep meeting the limit back off 15, 30, 60, then 60 minutes', () => {
    let state: QuotaState = open;
    let now = t0;
    const waits: number[] = [];
    for (let probe = 0; probe < 5; probe++) {
      state = limitSeen(state, limit(null), now);
      const opens = opensAt(state) as number;
      waits.push((opens - now) / min);
      now = opens;
      state = timePassed(state, now);
      expect(state).toMatchObject({ status: 'open', openedBy: 'probe' });
      now += 2 * min; // the probe launch meets the limit again two minutes later
    }
    expect(waits).toEqual([15, 30, 60, 60, 60]);
    expect([1, 2, 3, 4].map(probeBackoffMs)).toEqual([15, 30, 60, 60].map((m) => m * min));
  });

  test('a limit long after a probe opened the gate starts the backoff again', () => {
    const probed = timePassed(limitSeen(limitSeen(open, limit(null), t0), limit(null), t0), t0 + 15 * min);
    expect(limitSeen(probed, limit(null), t0 + 15 * min + 2 * 60 * min)).toMatchObject({ status: 'closed-unknown', step: 1 });
  });

  test('a known reset replaces a probe; a limit without one leaves a known reset as it is', () => {
    const probing = limitSeen(open, limit(null), t0);
    const until = limitSeen(probing, limit(at(t0 + 120 * min)), t0 + min);
    expect(until).toMatchObject({ status: 'closed-until', resetAt: at(t0 + 120 * min), version: 2 });
    expect(limitSeen(until, limit(null), t0 + 2 * min)).toBe(until);
  });

  test('the operator opens a closed gate; an open gate stays as it is', () => {
    const closed = limitSeen(open, limit(at(t0 + 60 * min)), t0);
    expect(openedByOperator(closed, t0 + min)).toMatchObject({ status: 'open', openedBy: 'operator', version: 2 });
    expect(openedByOperator(open, t0)).toBe(open);
  });

  test('a run keeps the newer of two copies, whatever order they arrive in', () => {
    const closed = limitSeen(open, limit(at(t0 + 60 * min)), t0);
    expect(newer(closed, open)).toBe(closed);
    expect(newer(open, closed)).toBe(closed);
    expect(newer(undefined, open)).toBe(open);
  });
});
