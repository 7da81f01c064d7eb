import {
  answerKey,
  applyVerdict,
  budgetStop,
  buildManifest,
  changedReads,
  changedSubjects,
  environmentStop,
  rejectedReason,
  snapshotOf,
  strayStop,
  without,
} from '../../src/analysis/decisions.js';
import type { MemberRecord } from '../../src/analysis/progress.js';

const member = (role: string, sha256: string, handed: Record<string, string> = {}): MemberRecord => ({
  role,
  path: `${role}.md`,
  sha256,
  size: 10,
  check: 'passed',
  handed,
  attempt: 1,
  launchId: `run/${role}/1`,
  profile: 'fake',
  model: 'm',
  modelSource: 'harness',
});

const members = {
  'runtime-report': member('runtime-report', 'r1'),
  'lens-memory': member('lens-memory', 'm1'),
  reconciliation: member('reconciliation', 'c1', { 'runtime-report': 'r0', 'lens-memory': 'm1' }),
};

describe('applying a verdict', () => {
  test('marks each subject it was handed accepted or refused at the bytes it was handed', () => {
    const marked = applyVerdict(
      members,
      { 'runtime-report': 'r0', 'lens-memory': 'm1' },
      'report-verification',
      ['runtime-report', 'lens-memory'],
      ['runtime-report'],
    );
    expect(marked['runtime-report']?.verified).toEqual({ by: 'report-verification', outcome: 'refused', sha256: 'r0' });
    expect(marked['lens-memory']?.verified).toEqual({ by: 'report-verification', outcome: 'accepted', sha256: 'm1' });
  });

  test('leaves out a subject the verifier was not handed', () => {
    expect(Object.keys(applyVerdict(members, { 'lens-memory': 'm1' }, 'v', ['runtime-report', 'lens-memory'], []))).toEqual(['lens-memory']);
  });
});

describe('which subjects changed', () => {
  test('a subject whose bytes differ from the handed version changed; the others did not', () => {
    expect(changedSubjects(members, { 'runtime-report': 'r0', 'lens-memory': 'm1' }, ['runtime-report', 'lens-memory'])).toEqual(['runtime-report']);
  });

  test('corrections that left every subject as handed change none', () => {
    expect(changedSubjects(members, { 'runtime-report': 'r1', 'lens-memory': 'm1' }, ['runtime-report', 'lens-memory'])).toEqual([]);
  });

  test('a member written from an older version of a read has that read changed', () => {
    expect(changedReads(members.reconciliation, members, ['runtime-report', 'lens-memory'])).toEqual(['runtime-report']);
  });
});

describe('snapshots', () => {
  test('a snapshot maps each role to its accepted bytes, and without() leaves one role out', () => {
    const snapshot = snapshotOf(members);
    expect(snapshot).toEqual({ 'runtime-report': 'r1', 'lens-memory': 'm1', reconciliation: 'c1' });
    expect(without(snapshot, 'lens-memory')).toEqual({ 'runtime-report': 'r1', reconciliation: 'c1' });
  });
});

describe('stop reasons', () => {
  test('a spent budget names the role, its budget and why, with the evidence', () => {
    expect(budgetStop('synthesis', 3, 'its last candidate was rejected: x', 'checks/f.md')).toEqual({
      kind: 'budget-exhausted',
      disposition: 'operator',
      reason: 'synthesis has used all 3 of its attempts; its last candidate was rejected: x',
      evidence: 'checks/f.md',
    });
  });

  test('an environment stop names the first problem and counts the rest', () => {
    expect(environmentStop({ problems: ['HEAD moved', 'tree dirty', 'AGENTS.md edited'], evidence: 'environment.json' }).reason).toBe(
      'the environment changed: HEAD moved (and 2 more); restore it and resume, or prepare a new run',
    );
  });

  test('a stray-write stop lists five paths and counts the rest, with the worktree as evidence', () => {
    const stop = strayStop(['a', 'b', 'c', 'd', 'e', 'f', 'g'], 'lens reports', 'lens-memory', 2, 'wt');
    expect(stop.reason).toMatch(
      /^the worktree changed outside run state during the lens reports launches \(seen after lens-memory attempt 2\): a, b, c, d, e and 2 more;/,
    );
    expect(stop.evidence).toBe('wt (git -C wt status)');
  });

  test('a rejected correction keeps why it was asked and says it was then rejected, once', () => {
    expect(rejectedReason('correction', 'refused by v')).toBe('refused by v; then rejected by its check');
    expect(rejectedReason('correction', 'refused by v; then rejected by its check')).toBe('refused by v; then rejected by its check');
    expect(rejectedReason('write', undefined)).toBe('rejected by its check');
  });
});

describe('the manifest', () => {
  test('lists the members in the layout order with their digests', () => {
    const manifest = buildManifest({ runId: 'R', order: ['reconciliation', 'runtime-report', 'lens-memory'] }, members, 'running', 'T');
    expect(manifest.members.map((entry) => entry.role)).toEqual(['reconciliation', 'runtime-report', 'lens-memory']);
    expect(manifest.files).toEqual({ 'reconciliation.md': 'c1', 'runtime-report.md': 'r1', 'lens-memory.md': 'm1' });
    expect([manifest.run, manifest.status, manifest.updatedAt]).toEqual(['R', 'running', 'T']);
  });
});

describe('answer keys', () => {
  const ask = { prompt: 'job = x', inputs: { a: '1', findings: 'f' }, outputs: ['x.md'], profile: 'fake' };

  test('two asks handed the same prompt, inputs, outputs and profile have one key, whatever the order of their inputs', () => {
    expect(answerKey(ask)).toBe(answerKey({ ...ask, inputs: { findings: 'f', a: '1' } }));
  });

  test.each([
    ['prompt', { prompt: 'job = y' }],
    ['input digest', { inputs: { a: '2', findings: 'f' } }],
    ['outputs list', { outputs: ['y.md'] }],
    ['profile', { profile: 'claude' }],
  ])('a different %s is a different key', (_what, change) => {
    expect(answerKey({ ...ask, ...change })).not.toBe(answerKey(ask));
  });
});
