// A `--batch` gate sweep of a copy of the example KB against a model-API stand-in: its profile, its
// input, and what the tests read back (requests sent twice, live requests, fresh and valid pairs).
import { cp, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { collectFiles, validateFiles } from '../../src/kb/validate.js';
import { packageRoot } from '../../src/paths.js';
import { selectPairs } from '../../src/review/status.js';
import type { Grouping, SweepInput } from '../../src/review/sweep-types.js';
import { scratch } from './fake.js';
import { announceCheckout } from './kb.js';
import { startStandIn, type StandIn } from './model-apis/index.js';
import { gatesCommand, type SweepFlags } from './sweep.js';
import { uniqueId } from './temporal.js';

export const KEY_ENV = 'COMMONPLACE_TEST_MODEL_API_KEY';
export const gates = ['frontmatter/*', 'sentence/*'];
export const models = { anthropic: 'claude-haiku-4-5', openai: 'gpt-5-mini' } as const;
export type Api = keyof typeof models;
export const exampleNotes = [
  'kb/notes/a-bare-writing-prompt-does-not-determine-its-intended-contribution.md',
  'kb/notes/verifiability-gradient.md',
  'kb/notes/why-notes-have-types.md',
];

export interface BatchSweep {
  checkout: string;
  standIn: StandIn;
  dir: string;
  input: (grouping: Grouping) => SweepInput;
  /** `review run gates --batch` over the notes on the stand-in's profile (`flags` over those), then `more`. */
  command: (notes: string[], flags?: Partial<SweepFlags>, ...more: string[]) => string[];
}

let sweeps = 0;

/** A copy of the example KB, a stand-in of the API, and a profile pointing at it (the caller closes the stand-in). */
export async function batchSweep(api: Api, ...replies: Parameters<StandIn['script']>): Promise<BatchSweep> {
  sweeps += 1;
  process.env[KEY_ENV] = 'stand-in-key';
  const profile = `${api}-batch-${process.pid}-${sweeps}`;
  const standIn = await startStandIn(api, ...replies);
  standIn.cache.minimumTokens = 64; // the example KB's criteria are short: let them pass the minimum
  const checkout = await scratch('commonplace-example-kb-');
  await cp(join(packageRoot(), 'examples', 'kb'), join(checkout, 'kb'), { recursive: true });
  await announceCheckout(checkout);
  const dir = await scratch();
  const profilesFile = join(dir, 'worker-profiles.yaml');
  const baseUrl = api === 'openai' ? `${standIn.url}/v1` : standIn.url;
  await writeFile(
    profilesFile,
    stringify({
      profiles: { [profile]: { harness: api, model: models[api], 'base-url': baseUrl, 'api-key-env': KEY_ENV, timeout: '1m', 'max-output-tokens': 1024 } },
    }),
  );
  const input = (grouping: Grouping): SweepInput => ({
    checkout,
    runId: uniqueId('BATCH').replace(/\//g, '-'),
    notes: exampleNotes,
    gates,
    criteria: ['gates'],
    grouping,
    profile,
    concurrency: 2,
    batchSize: 20,
    autoResume: false,
    profilesFile,
    batch: 'always',
  });
  const command = (notes: string[], flags: Partial<SweepFlags> = {}, ...more: string[]) =>
    gatesCommand({ kb: checkout, profile, profiles: profilesFile, gates, notes, ...flags }, '--batch', ...more);
  return { checkout, standIn, dir, input, command };
}

/** Requests the stand-in answered live (not inside a batch). */
export const liveRequests = (standIn: StandIn) => standIn.requests.filter((request) => !request.side && request.answered !== 'batch');

/** custom_ids submitted more than once, over every batch the stand-in received. */
export const sentTwice = (standIn: StandIn) => [...standIn.batches.submitted].filter(([, times]) => times > 1).map(([customId]) => customId);

/** The swept notes' pairs that are not fresh, and the KB files validate fails. */
export async function staleAndInvalid(setup: BatchSweep, notes: string[] = exampleNotes): Promise<{ stale: string[]; invalid: string[] }> {
  const stale = (await selectPairs(setup.checkout, { notes, gates, criteria: ['gates'] }))
    .filter((pair) => pair.status !== 'fresh')
    .map((pair) => pair.resultPath);
  const validated = await validateFiles(await collectFiles(setup.checkout, ['kb'], setup.checkout), { repoRoot: setup.checkout });
  return { stale, invalid: validated.results.filter((file) => file.findings.some((finding) => finding.severity === 'fail')).map((file) => file.file) };
}
