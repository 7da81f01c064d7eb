// One review launch of a model-API executor through the real launch activity (no Temporal server: a
// MockActivityEnvironment), its inputs carried in the launch as a sweep's capture carries them. For
// tests of what one request sends and costs, and for bench/review-cost.ts.
import { MockActivityEnvironment } from '@temporalio/testing';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHarnessActivities } from '../../../src/activities/harness/launch.js';
import { reviewPrompt } from '../../../src/activities/review/prompt.js';
import type { LaunchResult } from '../../../src/harness/launch-contract.js';
import type { CachePrefix } from '../../../src/harness/prompt-cache.js';
import { parseProfiles } from '../../../src/harness/profiles.js';
import { fakeHarnessPath } from '../../../src/worker.js';
import type { StandIn } from './stand-in.js';

export interface ReviewInputs {
  note: { path: string; text: string };
  criteria: { id: string; path: string; text: string }[];
  /** What the sweep chose to put first for the cache (`SweepUnit.cachePrefix`). */
  cachePrefix?: CachePrefix;
  /** A note-first pair's note's criteria, as the sweep lists them (`noteToolLists`): Anthropic offers a tool for each. */
  noteTools?: { id: string; report: boolean }[];
}

export interface ApiProfileOptions {
  model: string;
  /** The worker's variable holding the key (set to a stand-in key here). */
  keyEnv: string;
  cacheTtl?: '5m' | '1h';
  maxOutputTokens?: number;
}

const { launch } = createHarnessActivities({ fakeHarnessPath, heartbeatIntervalMs: 60_000 });
let launches = 0;

/** Launches one review (a pair, or a bundle of several criteria) at the stand-in; a failed launch rejects. */
export async function apiReviewLaunch(standIn: StandIn, options: ApiProfileOptions, inputs: ReviewInputs): Promise<LaunchResult> {
  process.env[options.keyEnv] ??= 'stand-in-key';
  const api = standIn.api;
  const raw = {
    harness: api,
    model: options.model,
    'base-url': api === 'openai' ? `${standIn.url}/v1` : standIn.url,
    'api-key-env': options.keyEnv,
    timeout: '1m',
    attempts: 1,
    ...(options.cacheTtl !== undefined && { 'cache-ttl': options.cacheTtl }),
    ...(options.maxOutputTokens !== undefined && { 'max-output-tokens': options.maxOutputTokens }),
  };
  const profile = parseProfiles({ profiles: { review: raw } }, 'test').get('review')!;
  const dir = await mkdtemp(join(tmpdir(), 'commonplace-api-review-'));
  const files: Record<string, string> = { [join('inputs', 'note.md')]: inputs.note.text };
  const criterionInputs: Record<string, string> = {};
  for (const criterion of inputs.criteria) {
    const input = join('inputs', 'criteria', `${criterion.id}.md`);
    files[input] = criterion.text;
    criterionInputs[criterion.id] = input;
  }
  const unit = {
    key: `unit-${++launches}`,
    note: inputs.note.path,
    lens: 'all',
    criteria: inputs.criteria.map((criterion) => ({ id: criterion.id, path: criterion.path, report: false })),
    ...(inputs.cachePrefix && { cachePrefix: inputs.cachePrefix }),
  };
  const grouping = inputs.criteria.length > 1 ? 'bundle' : 'pair';
  const prompt = reviewPrompt({
    unit,
    grouping,
    noteInput: join('inputs', 'note.md'),
    criterionInputs,
    output: 'review.md',
    findings: [],
    ...(inputs.noteTools && { noteTools: inputs.noteTools }),
  });
  return new MockActivityEnvironment().run(launch, {
    launchId: `review/${unit.key}`,
    profile,
    dir,
    prompt,
    outputs: ['review.md'],
    files,
  }) as Promise<LaunchResult>;
}
