/** The run's records on disk, so `analysis inspect` reads a run without Temporal. */
import { writeFileAtomic } from '../../fs/atomic.js';
import { manifestFile, runRecordFile } from '../../analysis/run-dir.js';
import type { RecordRunInput } from './types.js';

/** Writes the run's progress (run.json) and working manifest, each atomically, so inspect reads them without Temporal. */
export async function recordRun(input: RecordRunInput): Promise<void> {
  await writeFileAtomic(runRecordFile(input.runDir), `${JSON.stringify(input.progress, null, 2)}\n`);
  await writeFileAtomic(manifestFile(input.runDir), `${JSON.stringify(input.manifest, null, 2)}\n`);
}
