import { sha256 } from '../../src/fs/digest.js';
import { approvalKey, approvalRefusal, type ApprovalKeyParts } from '../../src/review/edit/approval-key.js';
import type { ApprovalAnswer, Proposal } from '../../src/runs/stop.js';

const parts: ApprovalKeyParts = {
  runId: 'FP-1',
  stop: 2,
  file: 'artifact/publication.json',
  proposalSha256: 'a'.repeat(64),
  inputs: [{ path: 'artifact/final.md', sha256: 'b'.repeat(64) }],
};

const proposalOf = (exact: boolean): Proposal => ({
  path: parts.file,
  key: approvalKey(parts, sha256),
  stop: parts.stop,
  sha256: parts.proposalSha256,
  exact,
  ...(exact && { text: '{"files":{}}\n' }),
  inputs: [...parts.inputs],
  inspect: [parts.file],
});

const answerTo = (proposal: Proposal, change: Partial<ApprovalAnswer> = {}): ApprovalAnswer => ({
  file: proposal.path,
  key: proposal.key,
  text: proposal.text ?? 'edited',
  inputs: [...proposal.inputs],
  ...change,
});
const run = { runId: parts.runId, resume: 'commonplace review run full-pass kb/notes/a.md' };

describe('the approval key', () => {
  test('a key is the first 16 hex characters of the SHA-256 of the run, the stop, the file, its bytes and its inputs', () => {
    const expected = sha256(
      JSON.stringify(['commonplace-approval', 'FP-1', 2, 'artifact/publication.json', 'a'.repeat(64), [['artifact/final.md', 'b'.repeat(64)]]]),
    ).slice(0, 16);
    expect(approvalKey(parts, sha256)).toBe(expected);
  });

  test.each([
    ['another run', { runId: 'FP-2' }],
    ['another stop', { stop: 3 }],
    ['another proposal file', { file: 'proposals/02-plain-wording.md' }],
    ['other proposal bytes', { proposalSha256: 'c'.repeat(64) }],
    ['a changed input', { inputs: [{ path: 'artifact/final.md', sha256: 'd'.repeat(64) }] }],
  ])('%s gives another key', (_, change) => {
    expect(approvalKey({ ...parts, ...change }, sha256)).not.toBe(approvalKey(parts, sha256));
  });

  test('an answer with the proposal, its key and its inputs approves it', () => {
    expect(approvalRefusal(proposalOf(false), answerTo(proposalOf(false)), run)).toBeUndefined();
    expect(approvalRefusal(proposalOf(true), answerTo(proposalOf(true)), run)).toBeUndefined();
  });

  test.each([
    ['another file', { file: 'proposals/01.md' }, 'not-the-proposal'],
    ['a stale key', { key: '0123456789abcdef' }, 'stale-key'],
    ['a changed input', { inputs: [{ path: 'artifact/final.md', sha256: 'e'.repeat(64) }] }, 'inputs-changed'],
    ['a missing input', { inputs: [] }, 'inputs-changed'],
  ] as [string, Partial<ApprovalAnswer>, string][])('an answer with %s is refused (%s)', (_, change, type) => {
    const refusal = approvalRefusal(proposalOf(false), answerTo(proposalOf(false), change), run);
    expect(refusal?.type).toBe(type);
    expect(refusal?.message).toMatch(/nothing was approved$/);
  });

  test('an edited exact manifest is refused; an edited selection proposal is an answer', () => {
    expect(approvalRefusal(proposalOf(true), answerTo(proposalOf(true), { text: '{"files":{"x":"y"}}\n' }), run)?.type).toBe('edited-manifest');
    expect(approvalRefusal(proposalOf(false), answerTo(proposalOf(false), { text: 'my edited selections' }), run)).toBeUndefined();
  });

  test('a stale key refusal names the command that shows the current key', () => {
    expect(approvalRefusal(proposalOf(false), answerTo(proposalOf(false), { key: 'ffffffffffffffff' }), run)?.message).toContain(`\`${run.resume}\``);
  });
});
