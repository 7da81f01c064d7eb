// bench/recorded-history-size: the history bytes and events a launch costs in the recorded histories of
// test/histories/ (real runs of each workflow, recorded by test/histories/record.ts): a run's every
// execution (its batches and their continuations) summed, over the units its accepts judged.
// Usage: npx tsx bench/recorded-history-size.ts [DIR=test/histories] [NAME-PREFIX]...
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import proto from '@temporalio/proto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

const dir = process.argv[2] ?? 'test/histories';
const prefixes =
  process.argv.slice(3).length > 0 ? process.argv.slice(3) : ['compare-stopped-resumed', 'gates-completed', 'gates-provider-batch', 'analysis-published'];
const files = (await readdir(dir)).filter((file) => file.endsWith('.json'));

/** Activities that judge or answer a unit: a sweep's accept, a model-API unit, an analysis launch (and a provider batch's groups, by their units). */
const asks = new Set(['acceptUnit', 'reviewUnit', 'launch']);

console.log('| recorded run | executions | events | bytes | asks (launches or accepts) | bytes an ask |');
console.log('| --- | --- | --- | --- | --- | --- |');
for (const prefix of prefixes) {
  const runs = files.filter((file) => file === `${prefix}.json` || file.startsWith(`${prefix}-batch-`));
  let events = 0;
  let bytes = 0;
  let asked = 0;
  for (const file of runs) {
    const history = historyFromJSON(JSON.parse(await readFile(join(dir, file), 'utf8')));
    bytes += proto.temporal.api.history.v1.History.encode(history).finish().length;
    events += history.events?.length ?? 0;
    for (const event of history.events ?? []) {
      const type = event.activityTaskScheduledEventAttributes?.activityType?.name;
      if (type !== undefined && type !== null && asks.has(type)) asked += 1;
      if (type === 'acceptUnits') {
        // A provider batch's group: one activity judging many units.
        const data = event.activityTaskScheduledEventAttributes?.input?.payloads?.[0]?.data;
        asked += data ? (JSON.parse(Buffer.from(data).toString('utf8')) as { units: unknown[] }).units.length : 0;
      }
    }
  }
  console.log(
    `| ${prefix} | ${runs.length} | ${events} | ${bytes.toLocaleString('en')} | ${asked} | ${asked > 0 ? Math.round(bytes / asked).toLocaleString('en') : '-'} |`,
  );
}
