import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { DeterminismViolationError } from '@temporalio/workflow';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../src/paths.js';
import { RELEASE, RELEASE_MEMO, refusalIn, refusalOf, runsRunsOf } from '../src/release.js';
import { workflowBundlePath } from './helpers/temporal.js';
import { machinePathsIn } from './histories/scrub.js';

// Each history's workflow ID (workflow-ids.map) and the release that recorded it (recorded-by.map), beside it.
// A history recorded by a release this code runs (0.2.0 and later: src/release.ts) must replay. One recorded
// before the 0.2.0 boundary is of a run 0.2.0's workers refuse: it must meet that refusal, in its one line, and
// is kept only until every history is recorded again on 0.2.0 (docs/upgrading.md) — then each kept history is 0.2.0's.
const dir = join(packageRoot(), 'test', 'histories');
/** Histories recorded before places (inputs naming host paths, scrubbed to placeholders), all of 0.1.0: deleted with the re-recording. */
const prePlaces = join(dir, 'pre-places');

const jsonIn = (folder: string) =>
  existsSync(folder)
    ? readdirSync(folder)
        .filter((file) => file.endsWith('.json'))
        .sort()
    : [];
const mapIn = (folder: string, map: string) =>
  existsSync(join(folder, map)) ? (JSON.parse(readFileSync(join(folder, map), 'utf8')) as Record<string, string>) : {};
const files = jsonIn(dir);
const prePlacesFiles = jsonIn(prePlaces);
const ids = mapIn(dir, 'workflow-ids.map');
const prePlacesIds = mapIn(prePlaces, 'workflow-ids.map');
const releases = mapIn(dir, 'recorded-by.map');
const prePlacesReleases = mapIn(prePlaces, 'recorded-by.map');
/** Every history, as `folder/file` from test/histories, with its workflow ID and the release that recorded it. */
const all = [
  ...files.map((file) => ({ name: file, path: join(dir, file), workflowId: ids[file], release: releases[file] })),
  ...prePlacesFiles.map((file) => ({
    name: `pre-places/${file}`,
    path: join(prePlaces, file),
    workflowId: prePlacesIds[file],
    release: prePlacesReleases[file],
  })),
];
/** The histories of runs this code runs, and those of runs begun before the boundary (none, once all are recorded again). */
const current = all.filter((history) => history.release !== undefined && runsRunsOf(history.release));
const preBoundary = all.filter((history) => !current.includes(history));

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

  test('every history names the release that recorded it, and one recorded by a release this code runs is of a run begun on it: its start event carries that release', () => {
    expect(all.filter((history) => history.release === undefined).map((history) => history.name)).toEqual([]);
    expect(current.map((history) => [history.name, startOf(history.path).release])).toEqual(current.map((history) => [history.name, history.release]));
  });

  test(`every kept history is ${RELEASE}'s once recorded again: until then, those recorded before the boundary are 0.1.0's, of runs that name no release`, () => {
    expect(preBoundary.map((history) => [history.name, history.release, startOf(history.path).release])).toEqual(
      preBoundary.map((history) => [history.name, '0.1.0', undefined]),
    );
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

  // Jest refuses an empty table: each list has a placeholder row when it is empty.
  const rows = (histories: typeof all) =>
    histories.length > 0 ? histories.map((history) => [history.name, history] as const) : [['(none)', undefined] as const];

  test.each(rows(current))('%s replays without a determinism violation', async (_name, history) => {
    if (history === undefined) return;
    expect(history.workflowId).toBeDefined();
    await expect(
      Worker.runReplayHistory({ workflowBundle: { codePath: workflowBundlePath } }, load(history.path), history.workflowId),
    ).resolves.toBeUndefined();
  });

  test.each(rows(preBoundary))('%s, recorded before the boundary, meets the one-line refusal of a run begun before it', async (_name, history) => {
    if (history === undefined) return;
    expect(history.workflowId).toBeDefined();
    const { workflowType, memo } = startOf(history.path);
    const line = refusalOf({ workflowType, workflowId: history.workflowId!, memo });
    expect(line).toBeDefined();
    const error = await Worker.runReplayHistory({ workflowBundle: { codePath: workflowBundlePath } }, load(history.path), history.workflowId).then(
      () => undefined,
      (failure: Error) => failure,
    );
    expect(refusalIn(error?.message ?? '')).toBe(line);
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
