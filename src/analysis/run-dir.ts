/**
 * Where a run keeps its state: the run directory inside the run's worktree, ignored by Git.
 *
 * ```
 * <worktree>/.commonplace/analysis/<run-id>/
 *   parameters.json          what prepare fixed (run values for identity checks)
 *   manifest.json            the working manifest; at assembly the artifact's exact manifest
 *   run.json                 the last progress the workflow recorded (inspect reads it without Temporal)
 *   environment.json         the last environment assertion that failed, with what changed
 *   artifact/                the working artifact: each role's current member at its layout path
 *   store/sha256/ab/<digest> the content-addressed store of every candidate, findings list and refusal (src/fs/store.ts)
 *   capture/                 the frozen source (capture/source/) and its record (capture/source.json)
 *   launches/<role>/<n>/     one launch: prompt.md, handed members, findings.md/refusal.md, outputs, .launch/
 *   checks/<role>/<id>/      one check: the snapshot it ran against, check.json, findings.md
 *   publication.journal.jsonl the publication's journal
 * ```
 *
 * Node side (node:path); the workflow receives these paths from activities.
 */
import path from 'node:path';

export const RUN_STATE = '.commonplace';

export const runDirOf = (worktree: string, runId: string) => path.join(worktree, RUN_STATE, 'analysis', runId);
export const parametersFile = (runDir: string) => path.join(runDir, 'parameters.json');
export const manifestFile = (runDir: string) => path.join(runDir, 'manifest.json');
export const runRecordFile = (runDir: string) => path.join(runDir, 'run.json');
export const environmentFile = (runDir: string) => path.join(runDir, 'environment.json');
export const artifactDir = (runDir: string) => path.join(runDir, 'artifact');
export const captureDir = (runDir: string) => path.join(runDir, 'capture');
export const launchDir = (runDir: string, role: string, launch: number) => path.join(runDir, 'launches', role, String(launch));
/** The publication's journal: an entry before and after each step, so a retried publication finishes or detects what an earlier try did. */
export const publicationJournalFile = (runDir: string) => path.join(runDir, 'publication.journal.jsonl');
/** One publication at a time per checkout: they share its Git repository. */
export const publicationLockFile = (checkout: string) => path.join(checkout, RUN_STATE, 'analysis', 'publication.lock');
export const checkDir = (runDir: string, role: string, id: string) => path.join(runDir, 'checks', role, id);
