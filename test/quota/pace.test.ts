import { describe, expect, test } from '@jest/globals';
import type { LaunchResult } from '../../src/harness/launch-contract.js';
import { gather } from '../../src/workflows/asking/checked.js';
import { lowered, paceLaunch, paceLimit, startPace } from '../../src/workflows/asking/pace.js';

const launch = (launchId: string, warning?: LaunchResult['rateLimitWarning']): LaunchResult => ({
  launchId,
  profile: 'claude',
  harness: 'claude',
  exitCode: 0,
  timedOut: false,
  durationMs: 1,
  outputs: [],
  missing: [],
  model: null,
  modelSource: 'none',
  usage: null,
  costUsd: null,
  try: 1,
  logDir: '.launch/try-1',
  ...(warning !== undefined && { rateLimitWarning: warning }),
});

describe("a sweep's pace", () => {
  test('the first rate-limit warning halves the concurrency, at least 1; later warnings leave it', () => {
    startPace(5, undefined);
    paceLaunch(launch('s/a/1'));
    expect(paceLimit()).toBe(5);
    paceLaunch(launch('s/b/1', { type: 'five_hour', resetsAt: '2026-12-03T20:00:00.000Z' }));
    expect(paceLimit()).toBe(2);
    expect(lowered()).toEqual({ concurrency: 2, warning: 'five_hour, resets 2026-12-03T20:00:00.000Z (seen by s/b/1)' });
    paceLaunch(launch('s/c/1', { type: 'five_hour', resetsAt: null }));
    expect(paceLimit()).toBe(2);
    startPace(1, undefined);
    paceLaunch(launch('s/d/1', { type: 'seven_day', resetsAt: null }));
    expect(paceLimit()).toBe(1);
  });

  test('a later batch starts at the pace an earlier one lowered it to', () => {
    startPace(8, { concurrency: 4, warning: 'five_hour' });
    expect(paceLimit()).toBe(4);
    paceLaunch(launch('s/e/1', { type: 'five_hour', resetsAt: null }));
    expect(paceLimit()).toBe(4);
  });
});

describe('gather', () => {
  test('a limit that falls while it runs ends lanes as their asks finish', async () => {
    let limit = 4;
    let running = 0;
    const peaks: number[] = [];
    const results = await gather(
      Array.from({ length: 12 }, (_, index) => index),
      () => limit,
      async (item) => {
        running += 1;
        peaks.push(running);
        await new Promise((done) => setTimeout(done, 5));
        if (item === 0) limit = 1;
        running -= 1;
        return item * 2;
      },
    );
    expect(results).toEqual(Array.from({ length: 12 }, (_, index) => index * 2));
    expect(peaks.slice(0, 4)).toEqual([1, 2, 3, 4]);
    expect(Math.max(...peaks.slice(-4))).toBe(1);
  });

  test('a fixed limit runs at most that many at once', async () => {
    let running = 0;
    let peak = 0;
    await gather([1, 2, 3, 4, 5], 2, async () => {
      running += 1;
      peak = Math.max(peak, running);
      await new Promise((done) => setTimeout(done, 2));
      running -= 1;
    });
    expect(peak).toBe(2);
  });
});
