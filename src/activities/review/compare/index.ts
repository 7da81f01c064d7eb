/**
 * The compare run's activities: drawing the sample and preparing each route, gathering a route's
 * verdicts into its file, and writing the report at the end. A route's units are asked by the sweep's
 * own activities (capture, accept), with the accepted verdict written to the compare run's directory.
 */
import { finishCompare } from './finish.js';
import { prepareCompare } from './prepare.js';
import { collectVerdicts } from './verdicts.js';

/** Every compare activity under its registered name. */
export function createCompareActivities() {
  return { prepareCompare, collectVerdicts, finishCompare };
}
