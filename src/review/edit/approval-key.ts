/**
 * Binds an approval to one stop of one run and one proposal with its inputs, computed and checked here so the rule is read in one place.
 * PURE MODULE: the digest is handed in (workflow code cannot hash).
 */
import type { ApprovalAnswer, Proposal } from '../../runs/stop.js';

export interface ApprovalKeyParts {
  runId: string;
  stop: number;
  /** Run-relative. */
  file: string;
  proposalSha256: string;
  inputs: readonly { path: string; sha256: string }[];
}

/** Short enough to type, long enough never to collide in a run. */
const APPROVAL_KEY_LENGTH = 16;

/** Its order and tag are part of every key ever issued: they never change. */
function approvalKeyText(parts: ApprovalKeyParts): string {
  return JSON.stringify([
    'commonplace-approval',
    parts.runId,
    parts.stop,
    parts.file,
    parts.proposalSha256,
    parts.inputs.map((input) => [input.path, input.sha256]),
  ]);
}

export function approvalKey(parts: ApprovalKeyParts, digest: (text: string) => string): string {
  return digest(approvalKeyText(parts)).slice(0, APPROVAL_KEY_LENGTH);
}

interface ApprovalRefusal {
  type: 'not-the-proposal' | 'stale-key' | 'inputs-changed' | 'edited-manifest';
  message: string;
}

/** The same file, the same key, every input as proposed, and an exact proposal's bytes unchanged; undefined when the answer approves. */
export function approvalRefusal(proposal: Proposal, answer: ApprovalAnswer, run: { runId: string; resume: string }): ApprovalRefusal | undefined {
  if (answer.file !== proposal.path) {
    return {
      type: 'not-the-proposal',
      message: `${answer.file} is not the proposal run ${run.runId} waits on (it waits on ${proposal.path}); nothing was approved`,
    };
  }
  if (answer.key !== proposal.key) {
    return {
      type: 'stale-key',
      message: `key ${answer.key} is not the key of the stop run ${run.runId} is in: it is stale or mistyped (run \`${run.resume}\` to see the current one); nothing was approved`,
    };
  }
  const changed = proposal.inputs.filter((input) => answer.inputs.find((sent) => sent.path === input.path)?.sha256 !== input.sha256).map((input) => input.path);
  if (changed.length > 0) {
    return {
      type: 'inputs-changed',
      message: `the proposal's inputs changed since it was proposed (${changed.join(', ')}): they cannot be edited to change what is approved; nothing was approved`,
    };
  }
  if (proposal.exact && answer.text !== proposal.text) {
    return {
      type: 'edited-manifest',
      message: `${proposal.path} is not the generated manifest: final publication is approved only with the exact generated file (restore it; to change the candidate, change the run's inputs); nothing was approved`,
    };
  }
  return undefined;
}
