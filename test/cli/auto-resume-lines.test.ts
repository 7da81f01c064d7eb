/**
 * An analysis stopped on a usage limit it waits out by itself (`--auto-resume`) says so once: on the
 * next line, which names the resume only as the way to go on sooner.
 */
import { expect, test } from '@jest/globals';
import type { AnalysisProgress } from '../../src/analysis/progress.js';
import { formatStop } from '../../src/client/analysis/analysis-format.js';
import type { Stop } from '../../src/runs/stop.js';

const usageLimit: Stop = { kind: 'usage-limit', disposition: 'retry', reason: 'usage limit reached', resetAt: '2026-06-01T13:00:00.000Z' };
const conflict: Stop = { kind: 'conflict', disposition: 'operator', reason: 'kb/notes/a.md changed', paths: ['kb/notes/a.md'] } as Stop;

const stopped = (stops: Stop[], resumesAt?: string) =>
  ({
    runId: 'AAS-1',
    workflowId: 'analysis/32ae503a/AAS-1',
    status: 'stopped',
    stage: 'boundary',
    stops,
    resumes: 0,
    ...(resumesAt !== undefined && { resumesAt }),
  }) as unknown as AnalysisProgress;

const times = (text: string, phrase: string) => text.split(phrase).length - 1;

test('an --auto-resume usage-limit stop says "it resumes by itself" once, on the line that names the resume as the way to go on sooner', () => {
  const text = formatStop(stopped([usageLimit], '2026-06-01T13:01:00.000Z'));
  expect(times(text, 'resumes by itself')).toBe(1);
  expect(text).toMatch(/^ {2}nothing to type: it resumes by itself at 2026-06-01T13:01:00\.000Z \(--auto-resume\); to go on sooner: .*analysis run AAS-1/m);
});

test('a usage limit beside another stop says it resumes by itself under the stops, since the next line names the other stop', () => {
  const text = formatStop(stopped([usageLimit, conflict], '2026-06-01T13:01:00.000Z'));
  expect(times(text, 'resumes by itself')).toBe(1);
  expect(text).toContain('    it resumes by itself at 2026-06-01T13:01:00.000Z (--auto-resume)');
});

test('without --auto-resume a usage-limit stop names its resume and says nothing of resuming by itself', () => {
  const text = formatStop(stopped([usageLimit]));
  expect(text).not.toContain('by itself');
  expect(text).toMatch(/^ {2}continue with: .*analysis run AAS-1/m);
});
