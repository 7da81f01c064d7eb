// bench/launch-requests: what one launch sends to the model API. Each shipped profile of a real harness
// (claude, claude-lean, codex, pi; the pinned CLIs of tools/harness-clis) is run through the launch
// activity against a local stand-in of its API (test/helpers/model-apis), which counts the requests
// and their body bytes. Three scripted launches per profile:
//   minimal  write one file, then answer (the probe);
//   pair     a gate review in `pair` grouping: read the note, read the gate, write the review, answer;
//   bundle   five gates in one launch: read the note, read each gate, write one review, answer.
// The stand-in's answers are tiny, so the figures are what the CLI itself sends: its system prompt,
// tool schemas and the growing conversation. Usage: npx tsx bench/launch-requests.ts [runs=1]
import { MockActivityEnvironment } from '@temporalio/testing';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHarnessActivities } from '../src/activities/harness/launch.js';
import { reviewPrompt } from '../src/activities/review/prompt.js';
import { probePrompt } from '../src/activities/probe/probe.js';
import type { LaunchResult } from '../src/harness/launch-contract.js';
import { parseProfiles } from '../src/harness/profiles.js';
import { packageRoot } from '../src/paths.js';
import { fakeHarnessPath } from '../src/worker.js';
import {
  apiOf,
  contractProfile,
  harnessInstalled,
  reply,
  shippedProfiles,
  startStandIn,
  type RealHarness,
  type Reply,
  type StandIn,
} from '../test/helpers/model-apis/index.js';

const runs = Number(process.argv[2] ?? 1);
const gatesDir = join(packageRoot(), 'examples', 'kb', 'instructions', 'review-gates');
const gates = [
  'frontmatter/title-as-claim',
  'frontmatter/description-discrimination',
  'prose/source-residue',
  'sentence/framing-mismatch',
  'sentence/stock-phrases',
];
const noteFile = join(packageRoot(), 'examples', 'kb', 'notes', 'why-notes-have-types.md');

interface Job {
  name: 'minimal' | 'pair' | 'bundle';
  pairs: number;
  /** Prepares the launch directory; returns the prompt, the outputs and the stand-in's script. */
  prepare(dir: string): Promise<{ prompt: string; outputs: string[]; script: Reply[] }>;
}

async function reviewJob(dir: string, ids: string[]): Promise<{ prompt: string; outputs: string[]; script: Reply[] }> {
  await mkdir(join(dir, 'inputs'), { recursive: true });
  await writeFile(join(dir, 'inputs', 'note.md'), await readFile(noteFile));
  const criterionInputs: Record<string, string> = {};
  for (const id of ids) {
    const input = join('inputs', 'criteria', `${id}.md`);
    await mkdir(join(dir, input, '..'), { recursive: true });
    await writeFile(join(dir, input), await readFile(join(gatesDir, `${id}.md`)));
    criterionInputs[id] = input;
  }
  const grouping = ids.length > 1 ? 'bundle' : 'pair';
  const unit = {
    key: 'bench',
    note: 'kb/notes/why-notes-have-types.md',
    lens: 'all',
    criteria: ids.map((id) => ({ id, path: `kb/instructions/review-gates/${id}.md`, report: false })),
  };
  const prompt = reviewPrompt({ unit, grouping, noteInput: join('inputs', 'note.md'), criterionInputs, output: 'review.md', findings: [] });
  const review =
    grouping === 'pair' ? 'The note passes this gate.\nResult: pass\n' : ids.map((id) => `## ${id}\n\nThe note passes this gate.\nResult: pass\n`).join('\n');
  const script = [
    reply.read('inputs/note.md'),
    ...ids.map((id) => reply.read(criterionInputs[id] as string)),
    reply.write('review.md', review),
    reply.text('Done.'),
  ];
  return { prompt, outputs: ['review.md'], script };
}

const jobs: Job[] = [
  {
    name: 'minimal',
    pairs: 1,
    prepare: async () => ({ prompt: probePrompt('probe.md'), outputs: ['probe.md'], script: [reply.write('probe.md'), reply.text('Done.')] }),
  },
  { name: 'pair', pairs: 1, prepare: (dir) => reviewJob(dir, gates.slice(0, 1)) },
  { name: 'bundle', pairs: gates.length, prepare: (dir) => reviewJob(dir, gates) },
];

const { launch } = createHarnessActivities({ fakeHarnessPath, heartbeatIntervalMs: 1000 });
const standIns = new Map<string, StandIn>();
async function standInFor(api: 'anthropic' | 'openai'): Promise<StandIn> {
  let standIn = standIns.get(api);
  if (!standIn) standIns.set(api, (standIn = await startStandIn(api)));
  return standIn;
}

interface Row {
  profile: string;
  job: Job['name'];
  pairs: number;
  requests: number;
  bytes: number;
  agentRequests: number;
  status: string;
}

const rows: Row[] = [];
const shipped = await shippedProfiles();
const names = Object.keys(shipped).filter((name) => ['claude', 'codex', 'pi'].includes(shipped[name]?.harness as string));
for (const name of names) {
  const harness = shipped[name]?.harness as RealHarness;
  if (!harnessInstalled(harness)) {
    console.log(`${name}: ${harness} is not installed (npm ci --prefix tools/harness-clis)`);
    continue;
  }
  const standIn = await standInFor(apiOf[harness]);
  for (const job of jobs) {
    for (let run = 0; run < runs; run++) {
      const dir = await mkdtemp(join(tmpdir(), `bench-requests-${name}-`));
      const { prompt, outputs, script } = await job.prepare(dir);
      const { profile: raw } = await contractProfile(name, standIn.url, { overrides: { timeout: '5m' } });
      const profile = parseProfiles({ profiles: { [name]: raw } }, 'bench').get(name)!;
      standIn.script(...script);
      standIn.resetCounts();
      const result = (await new MockActivityEnvironment()
        .run(launch, { launchId: `bench/${name}/${job.name}`, profile, dir, prompt, outputs })
        .catch((error: unknown) => error)) as LaunchResult | Error;
      const status =
        result instanceof Error ? `failed: ${result.message.slice(0, 80)}` : result.missing.length > 0 ? `missing ${result.missing.join(', ')}` : 'ok';
      const stats = standIn.stats();
      rows.push({ profile: name, job: job.name, pairs: job.pairs, requests: stats.requests, bytes: stats.bytes, agentRequests: stats.agentRequests, status });
    }
  }
}
for (const standIn of standIns.values()) await standIn.close();

const kb = (bytes: number) => `${(bytes / 1000).toFixed(1)} KB`;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
console.log(`requests per launch at the API stand-in (request bodies; median of ${runs} run${runs > 1 ? 's' : ''})`);
console.log(
  `${'profile'.padEnd(12)} ${'launch'.padEnd(8)} ${'requests'.padStart(8)} ${'(turns)'.padStart(7)} ${'bytes'.padStart(10)} ${'per pair'.padStart(10)} ${'req/pair'.padStart(8)}  status`,
);
for (const name of names) {
  for (const job of jobs) {
    const mine = rows.filter((row) => row.profile === name && row.job === job.name);
    if (mine.length === 0) continue;
    const requests = median(mine.map((row) => row.requests));
    const bytes = median(mine.map((row) => row.bytes));
    const turns = median(mine.map((row) => row.agentRequests));
    const status = mine.every((row) => row.status === 'ok') ? 'ok' : mine.find((row) => row.status !== 'ok')?.status;
    console.log(
      `${name.padEnd(12)} ${job.name.padEnd(8)} ${String(requests).padStart(8)} ${String(turns).padStart(7)} ${kb(bytes).padStart(10)} ${kb(bytes / job.pairs).padStart(10)} ${(requests / job.pairs).toFixed(1).padStart(8)}  ${status}`,
    );
  }
}
