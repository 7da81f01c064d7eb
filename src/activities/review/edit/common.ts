import { sha256 } from '../../../fs/digest.js';
import { approvalKey } from '../../../review/edit/approval-key.js';

/** `approvalKey`, digested with SHA-256. */
export function proposalKey(runId: string, stop: number, file: string, proposalSha256: string, inputs: readonly { path: string; sha256: string }[]): string {
  return approvalKey({ runId, stop, file, proposalSha256, inputs }, sha256);
}
