/** The run directory inside the run's worktree, ignored by Git (docs/analysis.md lays it out). The workflow receives these paths from activities. */
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
/** An entry before and after each step, so a retried publication finishes or detects what an earlier try did. */
export const publicationJournalFile = (runDir: string) => path.join(runDir, 'publication.journal.jsonl');
/** One publication at a time per checkout: they share its Git repository. */
export const publicationLockFile = (checkout: string) => path.join(checkout, RUN_STATE, 'analysis', 'publication.lock');
export const checkDir = (runDir: string, role: string, id: string) => path.join(runDir, 'checks', role, id);
