/**
 * A sweep run's answers by answer key, in its run directory so they outlive every execution (and a `review retry` reads its origin's).
 * A key found here is judged again, not asked; the history carries only the key's digest.
 */
import { Context } from '@temporalio/activity';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../../../fs/atomic.js';
import { sha256 } from '../../../fs/digest.js';
import type { LaunchResult } from '../../../harness/launch-contract.js';
import { answerKey } from '../../../runs/answer-key.js';
import { unitIdentity, type UnitCapture } from '../../../review/unit-identity.js';
import { runDirOf } from './run-dir.js';

/** The launch (without its output bytes) and its outputs' bytes (base64). */
export interface RecordedAnswer {
  /** An activity execution (`<workflow>/<run>/<activity>`), or the provider batch that answered it. */
  owner: string;
  launch: LaunchResult;
  outputs: Record<string, string>;
}

const answerFile = (runDir: string, digest: string) => join(runDir, 'answers', digest.slice(0, 2), `${digest}.json`);
/** The runs whose answers this run adopts besides its own (a retry's origin, and its origins'). */
const adoptsFile = (runDir: string) => join(runDir, 'answers', 'adopts.json');

/** The name its answer is kept by, and its provider-batch `custom_id`'s stem. */
export function answerDigest(captured: UnitCapture, profile: string): string {
  return sha256(answerKey(unitIdentity(captured, profile)));
}

/** A retry of it (its worker died) finds its own answer, which its workflow has not counted yet. */
export function activityOwner(): string {
  const info = Context.current().info;
  return `${info.workflowExecution?.workflowId ?? ''}/${info.workflowExecution?.runId ?? ''}/${info.activityId}`;
}

/** A unit asked anew replaces the answer it was asked past. */
export async function recordAnswer(checkout: string, runId: string, digest: string, answer: Omit<RecordedAnswer, 'outputs'>, dir: string): Promise<void> {
  const { outputBytes: _bytes, ...launch } = answer.launch;
  const outputs: Record<string, string> = {};
  for (const { path } of launch.outputs) {
    const bytes = await readFile(join(dir, path)).catch(() => undefined);
    if (bytes !== undefined) outputs[path] = bytes.toString('base64');
  }
  await writeFileAtomic(answerFile(runDirOf(checkout, runId), digest), JSON.stringify({ ...answer, launch, outputs }));
}

/** A capture starts it empty. */
export async function restoreOutputs(recorded: RecordedAnswer, dir: string): Promise<void> {
  for (const [path, bytes] of Object.entries(recorded.outputs)) await writeFileAtomic(join(dir, path), Buffer.from(bytes, 'base64'));
}

/** In this run, or in a run it adopts answers from. */
export async function findAnswer(checkout: string, runId: string, digest: string): Promise<RecordedAnswer | undefined> {
  const runDir = runDirOf(checkout, runId);
  for (const run of [runId, ...(await adopted(runDir))]) {
    const text = await readFile(answerFile(runDirOf(checkout, run), digest), 'utf8').catch(() => undefined);
    if (text !== undefined) return JSON.parse(text) as RecordedAnswer;
  }
  return undefined;
}

async function adopted(runDir: string): Promise<string[]> {
  const text = await readFile(adoptsFile(runDir), 'utf8').catch(() => undefined);
  return text === undefined ? [] : (JSON.parse(text) as string[]);
}

/** A retry adopts the answers of the run it retries, and of every run that one adopted. */
export async function adoptAnswersOf(checkout: string, runId: string, origin: string): Promise<void> {
  const runs = [origin, ...(await adopted(runDirOf(checkout, origin)))].filter((run) => run !== runId);
  await writeFileAtomic(adoptsFile(runDirOf(checkout, runId)), JSON.stringify([...new Set(runs)]));
}
