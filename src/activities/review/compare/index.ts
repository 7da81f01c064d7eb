/** The compare run's activities: sample and routes, a route's verdicts into its file, the report; units go through the sweep's own activities. */
import { finishCompare } from './finish.js';
import { prepareCompare } from './prepare.js';
import { collectVerdicts } from './verdicts.js';

/** Every compare activity under its registered name. */
export function createCompareActivities() {
  return { prepareCompare, collectVerdicts, finishCompare };
}
