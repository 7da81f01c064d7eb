// Records only the analysis histories (test/histories/record.ts records every workflow's):
//   npx tsx test/analysis/record-histories.ts [--replace] [name ...]
// With names, only those histories are recorded; a history already kept is recorded again only with
// --replace (histories of runs begun under earlier code are what the replay test is for).
// Each history is saved as test/histories/<name>.json (refused if it names a path of this machine) and
// its workflow ID merged into workflow-ids.map.
import { chooseRecordings, failOnRejectedHistories, saveHistory as save } from '../histories/recording.js';
import { startDevEnvironment, startTimeSkippingEnvironment } from '../helpers/temporal.js';
import { recordAnalysisHistories, recordAnalysisTimerHistories } from './histories.js';

// The test workers load the bundle the jest global setup builds: build it from the current sources first.
const setup = '../helpers/global-setup.js';
await ((await import(setup)) as { default: () => Promise<void> }).default();
chooseRecordings(process.argv.slice(2));
const dev = await startDevEnvironment();
await recordAnalysisHistories(dev, save);
await dev.teardown();
const skipping = await startTimeSkippingEnvironment();
await recordAnalysisTimerHistories(skipping, save);
await skipping.teardown();
failOnRejectedHistories();
