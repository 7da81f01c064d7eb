import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { DeterminismViolationError } from '@temporalio/workflow';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../src/paths.js';
import { workflowBundlePath } from './helpers/temporal.js';
import { machinePathsIn } from './histories/scrub.js';

// Which branch of each patch these histories replay (the marker holders, the older-branch ones) and which
// release recorded each: the patch table of docs/upgrading.md, held to these files by test/upgrade/patch-table.test.ts.
const dir = join(packageRoot(), 'test', 'histories');
/** Histories recorded before places (inputs naming host paths, scrubbed to placeholders): runs begun then must still replay. */
const prePlaces = join(dir, 'pre-places');

const jsonIn = (folder: string) => readdirSync(folder).filter((file) => file.endsWith('.json')).sort();
const files = jsonIn(dir);
const prePlacesFiles = jsonIn(prePlaces);
const ids = JSON.parse(readFileSync(join(dir, 'workflow-ids.map'), 'utf8')) as Record<string, string>;
const prePlacesIds = JSON.parse(readFileSync(join(prePlaces, 'workflow-ids.map'), 'utf8')) as Record<string, string>;
/** Every history, as `folder/file` from test/histories, with its workflow ID. */
const all = [...files.map((file) => ({ name: file, path: join(dir, file), workflowId: ids[file] })), ...prePlacesFiles.map((file) => ({ name: `pre-places/${file}`, path: join(prePlaces, file), workflowId: prePlacesIds[file] }))];

const read = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as unknown;
const load = (path: string) => historyFromJSON(read(path));

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
        'full-pass-approved-keyed.json',
        'revise-selection-approved-keyed.json',
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
    // Runs begun before places named host paths: a few of their histories, as recorded then (analysis-budget-exhausted
    // also from before the lifecycle's exhausted close).
    expect(prePlacesFiles).toEqual(['analysis-budget-exhausted.json', 'analysis-completed.json', 'full-pass-approved.json', 'gates-completed-batch-1.json', 'gates-completed.json', 'probe-completed.json']);
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

  test.each(all.map((history) => [history.name, history]))('%s replays without a determinism violation', async (_name, history) => {
    expect(history.workflowId).toBeDefined();
    await expect(Worker.runReplayHistory({ workflowBundle: { codePath: workflowBundlePath } }, load(history.path), history.workflowId)).resolves.toBeUndefined();
  });

  test('a workflow change that reorders commands fails the replay', async () => {
    const { code } = await bundleWorkflowCode({
      workflowsPath: join(packageRoot(), 'test', 'fixtures', 'replay', 'changed-workflows.ts'),
      logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} } as never,
    });
    await expect(Worker.runReplayHistory({ workflowBundle: { code } }, load(join(dir, 'probe-completed.json')), 'changed')).rejects.toBeInstanceOf(DeterminismViolationError);
  });
});
