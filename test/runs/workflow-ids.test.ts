import { analysisNext, compareNext, editNext, runCommand, sweepNext } from '../../src/runs/run-commands.js';
import {
  afterSweepPrefix,
  analysisWorkflowId,
  checkoutSweepsPrefix,
  compareBatchId,
  compareRunId,
  compareRunIdOf,
  compareWorkflowId,
  editKindOf,
  editWorkflowId,
  gateBatchId,
  namespacedIdentity,
  namedCompareRun,
  namedSweep,
  probeWorkflowId,
  quotaAccountOf,
  quotaGateId,
  scheduledSweepRunId,
  scheduleNameOf,
  sweepRunId,
  sweepRunIdOf,
  sweepScheduleId,
  sweepWorkflowId,
  workflowKindOf,
} from '../../src/runs/workflow-ids.js';
import { editRunId } from '../../src/review/edit/identity.js';

const digest = 'a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9';

describe('workflow IDs', () => {
  test('each kind is built as runs on the namespace already carry it', () => {
    expect(analysisWorkflowId('3f9c2a', 'AAS-2026-12-03-quill-01')).toBe('analysis/3f9c2a/AAS-2026-12-03-quill-01');
    expect(sweepRunId('3f9c2a', digest)).toBe('GS-3f9c2a-a1b2c3d4e5');
    expect(sweepWorkflowId('GS-3f9c2a-a1b2c3d4e5')).toBe('gates/GS-3f9c2a-a1b2c3d4e5');
    expect(scheduledSweepRunId('3f9c2a', 'nightly')).toBe('GS-3f9c2a-scheduled-nightly');
    expect(checkoutSweepsPrefix('3f9c2a')).toBe('gates/GS-3f9c2a-');
    expect(sweepScheduleId('nightly')).toBe('gates-nightly');
    expect(compareRunId('3f9c2a', digest)).toBe('CMP-3f9c2a-a1b2c3d4e5');
    expect(compareWorkflowId('CMP-3f9c2a-a1b2c3d4e5')).toBe('compare/CMP-3f9c2a-a1b2c3d4e5');
    expect(editWorkflowId('revise', '0a1b2c3d', 'kb/notes/x.md', digest)).toBe('revise/0a1b2c3d/kb/notes/x.md/a1b2c3d4e5f6');
    expect(probeWorkflowId('claude', new Date('2026-12-05T19:30:07.123Z'), 'k3x9')).toBe('probe/claude/20261205T193007Z-k3x9');
    expect(quotaGateId('claude/team')).toBe('quota/claude/team');
  });

  test('outside the default namespace a run ID names the namespace, so two namespaces never share a run directory; in default, IDs are as they were', () => {
    expect(namespacedIdentity('default')).toEqual([]);
    expect(namespacedIdentity('kb2')).toEqual(['kb2']);
    expect(scheduledSweepRunId('3f9c2a', 'nightly', 'default')).toBe('GS-3f9c2a-scheduled-nightly');
    expect(scheduledSweepRunId('3f9c2a', 'nightly', 'kb2')).toBe('GS-3f9c2a-kb2-scheduled-nightly');
    expect(editRunId('full-pass', 'kb/notes/x.md', digest, digest, 'default')).toBe('full-pass-notes_x-a1b2c3d4e5f6');
    expect(editRunId('full-pass', 'kb/notes/x.md', digest, digest, 'kb2')).toBe('full-pass-notes_x-a1b2c3d4e5f6-in-kb2');
  });

  test("a batch child's ID is its parent's with the batch counted from 1, and a resume's count", () => {
    // As the sweep and the compare run have named their children in recorded histories.
    expect(gateBatchId('gates/GS-3f9c2a-a1b2c3d4e5', 0, 0)).toBe('gates/GS-3f9c2a-a1b2c3d4e5/batch-1');
    expect(gateBatchId('gates/GS-3f9c2a-a1b2c3d4e5', 2, 1)).toBe('gates/GS-3f9c2a-a1b2c3d4e5/batch-3-r1');
    expect(compareBatchId('compare/CMP-3f9c2a-a1b2c3d4e5', 'claude', 1, 0)).toBe('compare/CMP-3f9c2a-a1b2c3d4e5/claude/batch-2');
  });

  test('an ID is read back to its kind', () => {
    expect(
      [
        'analysis/3f9c2a/AAS-2026-12-03-quill-01',
        'gates/GS-3f9c2a-a1b2c3d4e5',
        'gates/GS-3f9c2a-a1b2c3d4e5/batch-3-r1',
        'compare/CMP-3f9c2a-a1b2c3d4e5',
        'compare/CMP-3f9c2a-a1b2c3d4e5/claude/batch-2',
        'full-pass/0a1b2c3d/kb/notes/batch-1.md/a1b2c3d4e5f6',
        'revise/0a1b2c3d/kb/notes/x.md/a1b2c3d4e5f6',
        'probe/claude/20261205T193007Z-k3x9',
        'quota/claude/team',
        'GS-3f9c2a-a1b2c3d4e5',
      ].map(workflowKindOf),
    ).toEqual(['analysis', 'gates', 'gate-batch', 'compare', 'compare-batch', 'full-pass', 'revise', 'probe', 'quota', undefined]);
    expect(editKindOf('full-pass/0a1b2c3d/kb/notes/x.md/a1b2c3d4e5f6')).toBe('full-pass');
    expect(editKindOf('gates/GS-3f9c2a-a1b2c3d4e5')).toBeUndefined();
  });

  test("an ID's parts are read back: a sweep's run (its batch's too), a compare run, an account, a schedule's name", () => {
    expect(afterSweepPrefix('gates/GS-3f9c2a-a1b2c3d4e5/batch-3')).toBe('GS-3f9c2a-a1b2c3d4e5/batch-3');
    expect(sweepRunIdOf('gates/GS-3f9c2a-a1b2c3d4e5/batch-3')).toBe('GS-3f9c2a-a1b2c3d4e5');
    expect(sweepRunIdOf('compare/CMP-3f9c2a-a1b2c3d4e5')).toBeUndefined();
    expect(compareRunIdOf('compare/CMP-3f9c2a-a1b2c3d4e5')).toBe('CMP-3f9c2a-a1b2c3d4e5');
    expect(compareRunIdOf('CMP-3f9c2a-a1b2c3d4e5')).toBe('CMP-3f9c2a-a1b2c3d4e5');
    expect(quotaAccountOf(quotaGateId('claude/team'))).toBe('claude/team');
    expect(scheduleNameOf(sweepScheduleId('nightly'))).toBe('nightly');
    expect(scheduleNameOf('other-nightly')).toBeUndefined();
  });

  test("an operator's RUN names a sweep or a compare run by its run ID or its workflow ID", () => {
    expect(['GS-3f9c2a-a1', 'gates/GS-3f9c2a-a1', 'gates/other', 'CMP-3f9c2a-a1', 'full-pass-x'].map(namedSweep)).toEqual([
      'GS-3f9c2a-a1',
      'GS-3f9c2a-a1',
      undefined,
      undefined,
      undefined,
    ]);
    expect(['CMP-3f9c2a-a1', 'compare/CMP-3f9c2a-a1', 'compare/other', 'GS-3f9c2a-a1'].map(namedCompareRun)).toEqual([
      'CMP-3f9c2a-a1',
      'CMP-3f9c2a-a1',
      undefined,
      undefined,
    ]);
  });
});

describe('the commands that name a run', () => {
  test('each run kind leads its stops to its commands', () => {
    expect(sweepNext('GS-1')).toEqual({
      resume: 'commonplace review run gates --resume GS-1',
      acknowledge: 'commonplace review acknowledge GS-1',
      ended: 'commonplace review retry GS-1',
    });
    expect(compareNext('CMP-1')).toEqual({
      resume: 'commonplace review compare --resume CMP-1',
      acknowledge: 'commonplace review acknowledge CMP-1',
      ended: 'commonplace review compare --resume CMP-1',
    });
    const edit = editNext({ kind: 'revise', note: 'kb/notes/x.md', runId: 'revise-x-1' });
    expect(edit.approve?.({ path: 'proposals/01.md', key: 'K', stop: 1, sha256: '', exact: false, inputs: [], inspect: [] })).toBe(
      'commonplace review approve revise-x-1 proposals/01.md --key K',
    );
    expect(edit.ended).toBe('commonplace review run revise kb/notes/x.md   (starts a fresh run over the same note text)');
    expect(analysisNext('AAS-1').resume).toBe('commonplace analysis run AAS-1');
  });

  test('single commands', () => {
    expect(runCommand.analysisReset('AAS-1', 'yes')).toBe('commonplace analysis reset AAS-1 --yes');
    expect(runCommand.cancel('GS-1')).toBe('commonplace review cancel GS-1');
    expect(runCommand.queryProgress('gates/GS-1/batch-1', 'batchProgress')).toBe(
      'temporal workflow query --workflow-id gates/GS-1/batch-1 --type batchProgress',
    );
  });
});
