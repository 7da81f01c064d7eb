/** How the analysis activities fail: a typed, permanent failure, and the run-state errors it stands for. */
import { ApplicationFailure } from '@temporalio/common';
import { writeFileAtomic } from '../../fs/atomic.js';
import { StoreError } from '../../fs/store.js';
import { KbError } from '../../kb/errors.js';
import { environmentFile } from '../../analysis/run-dir.js';
import { SourceError } from './source.js';
import type { AnalysisErrorType, EnvironmentChangedDetails } from './types.js';

/** A permanent failure of the given type (with what changed, for `environment-changed` and `source-unavailable`). */
export function failure(type: AnalysisErrorType, message: string, details?: EnvironmentChangedDetails): ApplicationFailure {
  return ApplicationFailure.create({ type, message, nonRetryable: true, ...(details && { details: [details] }) });
}

/** A store entry that is gone or altered means someone changed run state: the run stops for the operator. */
export async function guarded<T>(runDir: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof StoreError || error instanceof SourceError) {
      const evidence = error instanceof StoreError ? error.file : environmentFile(runDir);
      if (error instanceof SourceError)
        await writeFileAtomic(evidence, `${JSON.stringify({ ok: false, problems: [error.message], checkedAt: new Date().toISOString() }, null, 2)}\n`);
      throw failure(error instanceof SourceError && error.unavailable ? 'source-unavailable' : 'environment-changed', error.message, {
        problems: [error.message],
        evidence,
      });
    }
    if (error instanceof KbError) throw failure('bad-plan', error.message);
    throw error;
  }
}
