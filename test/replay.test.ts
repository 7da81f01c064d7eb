import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { DeterminismViolationError } from '@temporalio/workflow';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../src/paths.js';
import { RELEASE, RELEASE_MEMO, runsRunsOf } from '../src/release.js';
import { workflowBundlePath } from './helpers/temporal.js';
import { machinePathsIn } from './histories/scrub.js';

// Each history's workflow ID (workflow-ids.map) and the release that recorded it (recorded-by.map), beside it.
// Every kept history is of a release this code runs (src/release.ts) and must replay: a history of a run begun
// before the oldest such release is deleted with the release that stops running it (docs/upgrading.md), and
// test/upgrade/release.test.ts keeps a 0.1.0 history to prove such a run meets the one-line refusal.
const dir = join(packageRoot(), 'test', 'histories');

const files = readdirSync(dir)
  .filter((file) => file.endsWith('.json'))
  .sort();
const ids = JSON.parse(readFileSync(join(dir, 'workflow-ids.map'), 'utf8')) as Record<string, string>;
const releases = JSON.parse(readFileSync(join(dir, 'recorded-by.map'), 'utf8')) as Record<string, string>;
/** Every history, with its workflow ID and the release that recorded it. */
const all = files.map((file) => ({ name: file, path: join(dir, file), workflowId: ids[file], release: releases[file] }));

const read = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as unknown;
const load = (path: string) => historyFromJSON(read(path));

/** The release in a history's start event's memo (the Temporal CLI's JSON), and its workflow type. */
function startOf(path: string): { release: string | undefined; workflowType: string; memo: Record<string, unknown> } {
  const started = (
    read(path) as {
      events: { workflowExecutionStartedEventAttributes?: { workflowType?: { name?: string }; memo?: { fields?: Record<string, { data?: string }> } } }[];
    }
  ).events[0]?.workflowExecutionStartedEventAttributes;
  const memo = Object.fromEntries(
    Object.entries(started?.memo?.fields ?? {}).map(([key, payload]) => [
      key,
      JSON.parse(Buffer.from(payload.data ?? '', 'base64').toString('utf8')) as unknown,
    ]),
  );
  return { release: memo[RELEASE_MEMO] as string | undefined, workflowType: started?.workflowType?.name ?? '', memo };
}

/** Every string of a history, its payloads (base64 JSON) decoded. */
function textsOf(history: unknown): string[] {
  const texts: string[] = [];
  const visit = (value: unknown, key?: string): void => {
    if (typeof value === 'string') texts.push(key === 'data' && /^[A-Za-z0-9+/]*={0,2}$/.test(value) ? Buffer.from(value, 'base64').toString('utf8') : value);
    else if (Array.isArray(value)) value.forEach((item) => visit(item));
    else if (value !== null && typeof value === 'object') for (const [name, item] of Object.entries(value)) visit(item, name);
  };
  visit(history);
  return texts;
}

describe('recorded histories replay against the current workflow code', () => {
  test('there is a recorded history of each workflow: probe outcomes, gate sweeps and their batches, full passes, revisions, analyses, compare runs', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'probe-completed.json',
        'probe-launch-failed.json',
        'probe-relaunched.json',
        'probe-timed-out.json',
        'probe-usage-limit.json',
        'gates-completed.json',
        'gates-completed-batch-1.json',
        'gates-bundle.json',
        'gates-bundle-batch-1.json',
        'gates-stopped-resumed.json',
        'gates-stopped-resumed-batch-1.json',
        'full-pass-no-edit.json',
        'full-pass-approved.json',
        'full-pass-guard-acknowledged.json',
        'revise-selection-approved.json',
        'analysis-completed.json',
        'analysis-out-of-scope.json',
        'analysis-rejected-once.json',
        'analysis-cascade.json',
        'analysis-recheck.json',
        'analysis-stopped-resumed.json',
        'analysis-auto-resumed.json',
        'analysis-published.json',
        'analysis-publication-conflict.json',
        'analysis-exhausted.json',
        'analysis-unchanged-correction.json',
        'analysis-cancelled.json',
        'gates-exhausted.json',
        'gates-exhausted-batch-1.json',
        'full-pass-exhausted.json',
        'probe-failed.json',
        'quota-gate.json',
        'gates-quota-gate.json',
        'gates-quota-gate-batch-1.json',
        'gates-quota-gate-batch-1-r1.json',
        'gates-spend-limit.json',
        'gates-spend-limit-batch-1.json',
        'gates-spend-limit-batch-1-r1.json',
        'compare-stopped-resumed.json',
        'compare-stopped-resumed-batch-1-r1.json',
        'gates-provider-batch-capped.json',
        'gates-provider-batch-capped-batch-2-r1.json',
      ]),
    );
  });

  test(`every history names the release that recorded it, a release this code runs (${RELEASE} and on), and its run began on it: its start event carries that release`, () => {
    expect(all.filter((history) => history.release === undefined || !runsRunsOf(history.release)).map((history) => [history.name, history.release])).toEqual(
      [],
    );
    expect(all.map((history) => [history.name, startOf(history.path).release])).toEqual(all.map((history) => [history.name, history.release]));
  });

  test.each(all.map((history) => [history.name, history]))('%s names no absolute path of the machine that recorded it', (_name, history) => {
    expect(machinePathsIn(read(history.path))).toEqual([]);
  });

  // Recorded as the system runs now, not scrubbed afterwards: no scrub placeholder, and a run on a checkout names it by its ID.
  test.each(files)('%s was recorded with place tokens: no scrub placeholder, its checkout named <checkout:ID>', (file) => {
    const texts = textsOf(read(join(dir, file)));
    expect(texts.filter((text) => /<(?:tmp|home|work)>/.test(text))).toEqual([]);
    if (/^(?:gates-|full-pass-|revise-|analysis-|compare-)/.test(file)) expect(texts.some((text) => /<checkout:[0-9a-f]{8}>/.test(text))).toBe(true);
  });

  /** Each history's replay, by workflow ID: one replay worker replays them all (a worker per history loads the bundle each time). */
  const replays = new Map<string, unknown>();
  const replayAll = async () => {
    const replayed = Worker.runReplayHistories(
      { workflowBundle: { codePath: workflowBundlePath } },
      all.filter((history) => history.workflowId !== undefined).map((history) => ({ workflowId: history.workflowId!, history: load(history.path) })),
    );
    for await (const result of replayed) replays.set(result.workflowId, result.error);
  };
  let replayed: Promise<void> | undefined;

  test.each(all.map((history) => [history.name, history] as const))('%s replays without a determinism violation', async (_name, history) => {
    expect(history.workflowId).toBeDefined();
    await (replayed ??= replayAll());
    expect(replays.has(history.workflowId!)).toBe(true);
    expect(replays.get(history.workflowId!)).toBeUndefined();
  });

  test('a workflow change that reorders commands fails the replay', async () => {
    const { code } = await bundleWorkflowCode({
      workflowsPath: join(packageRoot(), 'test', 'fixtures', 'replay', 'changed-workflows.ts'),
      logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} } as never,
    });
    await expect(Worker.runReplayHistory({ workflowBundle: { code } }, load(join(dir, 'probe-completed.json')), 'changed')).rejects.toBeInstanceOf(
      DeterminismViolationError,
    );
  });
});
