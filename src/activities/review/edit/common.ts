import { sha256 } from '../../../fs/digest.js';

/**
 * A proposal's key: a digest of the run, the stop number, the proposal's path and bytes, and its
 * inputs' digests, so it names this stop and this proposal and nothing else.
 */
export function proposalKey(runId: string, stop: number, file: string, proposalSha256: string, inputs: readonly { path: string; sha256: string }[]): string {
  return sha256(JSON.stringify(['commonplace-approval', runId, stop, file, proposalSha256, inputs.map((input) => [input.path, input.sha256])])).slice(0, 16);
}
