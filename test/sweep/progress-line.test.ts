// The sweep's live progress line, as a pure function of its progress, the running batch and a clock.
import { duration, formatSummary, progressLine, type RunningBatch } from '../../src/client/review/shared/sweep-format.js';
import { emptyCounts, type SweepCounts, type SweepProgress } from '../../src/review/sweep-types.js';
import { emptyTokens } from '../../src/runs/spend.js';

const counts = (over: Partial<SweepCounts> = {}): SweepCounts => ({ ...emptyCounts(), ...over });

const progress = (over: Partial<SweepProgress> = {}): SweepProgress => ({
  runId: 'GS-abc-123',
  workflowId: 'gates/GS-abc-123',
  status: 'running',
  stage: 'batch',
  stops: [],
  resumes: 0,
  pairs: 62,
  units: 62,
  batches: 1,
  batch: 0,
  counts: counts(),
  ...over,
});

const start = Date.parse('2026-12-03T10:00:00Z');
const minutes = (n: number) => start + n * 60_000;

test('pairs done in the running batch count: results, problems and launches are its, not "none yet" and 0 launches', () => {
  const batch: RunningBatch = { counts: counts({ pairsDone: 56, written: { pass: 50, warn: 4, fail: 0, report: 0 }, problems: 2, launches: 58, tries: 58 }) };
  const line = progressLine(progress(), batch, { now: minutes(14), startedAt: start });
  expect(line).toBe(
    'GS-abc-123: 56/62 pairs · batch 1/1 · results 50 pass, 4 warn · 2 problems, 0 stale on arrival · 58 launches · 4.0 pairs/min · elapsed 14m00s · ETA 1m30s',
  );
  expect(line).not.toMatch(/none yet|\b0 launches/);
});

test("finished batches and the running one add up; the batch spend, which holds the sweep's before it, is the spend shown", () => {
  const sweep = progress({
    batches: 3,
    batch: 1,
    counts: counts({ pairsDone: 30, written: { pass: 30, warn: 0, fail: 0, report: 0 }, launches: 30, tries: 31 }),
    spend: { launches: 30, costUsd: 0.3, unpriced: 0, tokens: emptyTokens() },
  });
  const batch: RunningBatch = {
    counts: counts({ pairsDone: 5, written: { pass: 4, warn: 0, fail: 1, report: 0 }, launches: 5 }),
    spend: { launches: 35, costUsd: 0.35, unpriced: 0, tokens: emptyTokens(), capUsd: 5 },
  };
  expect(progressLine(sweep, batch, { now: minutes(7), startedAt: start })).toBe(
    'GS-abc-123: 35/62 pairs · batch 2/3 · results 34 pass, 1 fail · 0 problems, 0 stale on arrival · 35 launches, $0.3500 of $5.00 cap · 5.0 pairs/min · elapsed 7m00s · ETA 5m24s',
  );
});

test('before the first pair the line has no rate and no ETA, and says no results yet', () => {
  expect(progressLine(progress(), undefined, { now: start + 5000, startedAt: start })).toBe(
    'GS-abc-123: 0/62 pairs · batch 1/1 · results none yet · 0 problems, 0 stale on arrival · 0 launches · elapsed 5s',
  );
});

test('pairs done with no result written (all problems) read "none written", not "none yet"', () => {
  const line = progressLine(progress({ counts: counts({ pairsDone: 2, problems: 2, launches: 6, tries: 6 }) }), undefined, {
    now: minutes(1),
    startedAt: start,
  });
  expect(line).toContain('results none written · 2 problems');
});

test('attached to a sweep part done, the rate counts only the pairs since the first look', () => {
  const line = progressLine(progress({ counts: counts({ pairsDone: 40, written: { pass: 40, warn: 0, fail: 0, report: 0 }, launches: 40 }) }), undefined, {
    now: minutes(62),
    startedAt: start,
    since: { at: minutes(60), done: 30 },
  });
  expect(line).toMatch(/ · 5\.0 pairs\/min · elapsed 1h02m · ETA 4m24s$/);
});

test('the last pair done leaves no ETA; without a start time there is no elapsed time', () => {
  const line = progressLine(
    progress({ pairs: 2, counts: counts({ pairsDone: 2, written: { pass: 2, warn: 0, fail: 0, report: 0 }, launches: 1 }) }),
    undefined,
    { now: minutes(2), since: { at: minutes(0), done: 0 } },
  );
  expect(line).toBe('GS-abc-123: 2/2 pairs · batch 1/1 · results 2 pass · 0 problems, 0 stale on arrival · 1 launch · 1.0 pairs/min');
});

test.each([
  [0, '0s'],
  [44_600, '45s'],
  [820_000, '13m40s'],
  [7_500_000, '2h05m'],
])('a duration of %i ms reads %s', (ms, text) => {
  expect(duration(ms)).toBe(text);
});

test('a model-API sweep whose units have prefixes below the cache minimum says how many, in the line and in the end-of-sweep report', () => {
  const cachePrefixes = {
    model: 'claude-haiku-4-5',
    minimumTokens: 4096,
    prefixes: 3,
    below: 2,
    unitsBelow: 40,
    examples: [{ shared: 'kb/notes/short.md', tokens: 900, units: 20 }],
  };
  expect(progressLine(progress({ cachePrefixes }), undefined, { now: start + 5000, startedAt: start })).toContain(
    ' · 0 launches · 40/62 units below the cache minimum · elapsed 5s',
  );
  const summary = formatSummary({ ...progress({ status: 'completed', cachePrefixes }), runDir: 'run', problems: [] });
  expect(summary).toContain(
    "\n  prompt cache       40 units (2 of 3 shared prefixes) below claude-haiku-4-5's cache minimum of 4096 tokens: not cached; shortest kb/notes/short.md at ~900\n",
  );
  expect(
    progressLine(progress({ cachePrefixes: { ...cachePrefixes, below: 0, unitsBelow: 0, examples: [] } }), undefined, { now: start + 5000, startedAt: start }),
  ).not.toContain('cache');
});

test("a batch waiting on its provider batch shows the provider's counts: processing, succeeded, errored, expired", () => {
  const batch: RunningBatch = {
    counts: counts(),
    provider: { round: 1, batches: ['msgbatch_1'], counts: { submitted: 62, processing: 40, succeeded: 20, errored: 1, expired: 1, canceled: 0 } },
  };
  expect(progressLine(progress(), batch, { now: minutes(3), startedAt: start })).toBe(
    'GS-abc-123: 0/62 pairs · batch 1/1 · results none yet · 0 problems, 0 stale on arrival · 0 launches · provider batch: 40 processing, 20 succeeded, 1 errored, 1 expired · elapsed 3m00s',
  );
});
