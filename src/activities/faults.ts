/**
 * Named points inside activities where a crash must not break the promise — each sits between two
 * writes whose order matters. Production workers pass no faults (the points do nothing); the crash
 * tests hand in faults through the worker's `faults` option (src/worker.ts) to kill the worker or
 * fail the attempt at exactly one of them. docs/temporal.md lists them.
 */
export type FaultPoint =
  /** A try's wrapper is spawned, and not yet recorded in its launch directory (src/activities/harness/tries.ts). */
  | 'try-spawned'
  /** A try has ended, and its outcome is not yet read or reported (src/activities/harness/launch.ts). */
  | 'try-ended'
  /** The provider accepted a batch, and its ID is not yet in the submissions ledger (src/activities/review/sweep/provider-batch.ts). */
  | 'batch-created'
  /** A model-API unit's answer is recorded in its launch directory, and not yet accepted or reported (src/activities/review/sweep/review-unit.ts). */
  | 'answer-recorded'
  /** An edit's note is written into the checkout, and the packet and results that describe it are not (src/activities/review/edit/publish.ts). */
  | 'note-written'
  /** An analysis publication's journal has one more entry, flushed; the step it announces is not yet taken (src/activities/analysis/publish.ts). */
  | 'publication-journaled'
  /** Either publication has written a file's temporary copy (src/fs/atomic.ts), and not yet renamed it over the file. */
  | 'temp-written';

/** The activities' fault points, handed to their factories; `at` may kill the process, throw, or wait. `detail` says which step a point is at (a journal's event, a file's path). */
export interface FaultPoints {
  at(point: FaultPoint, detail?: string): void | Promise<void>;
}

/** The production worker's fault points: none. */
export const noFaults: FaultPoints = { at: () => undefined };
