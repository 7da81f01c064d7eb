/** How the editing activities refuse a request. */
import { ApplicationFailure } from '@temporalio/common';

/** A request the run cannot carry out as asked: bad input, never retried. */
export function badInput(message: string): ApplicationFailure {
  return ApplicationFailure.create({ type: 'bad-edit-input', nonRetryable: true, message });
}
