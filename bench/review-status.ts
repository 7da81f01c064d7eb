// bench/review-status: `review status` over the whole shared corpus with a full set of result files.
// A copy of the corpus in a temporary directory gets one result file per applicable pair (written by
// writeResultFile, fsync off: setup only), then reviewStatus runs N times in a fresh process. Prints the
// pair count, the first run (cold JIT, as one CLI invocation pays it, without Node's start-up) and the
// median of the runs, the cost of one fsynced result write, and the measuring process's peak RSS; then
// the compiled command end to end (`node bin/commonplace.js review status --kb <copy>`, run `npm run
// build` first) N rounds of two runs: without the status cache (deleted first) and with it warm (the
// run right after), wall and CPU time each, and the machine's load average before and after.
// With a pair count, the notes of `kb/notes/` are copied beside themselves (`<name>-copy-K.md`, same
// folder, so the same types, gates and collection apply) until the KB has at least that many pairs:
// 50000 is about the size of the original system's real KB.
// Usage: npx tsx bench/review-status.ts [runs=7] [pairs]
import { existsSync } from 'node:fs';
import { cp, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { writeResultFile, type ResultRecord } from '../src/review/result-file.js';
import { reviewStatus, selectPairs, type PairStatus } from '../src/review/status.js';
import { STATUS_CACHE_FILE } from '../src/review/status-cache.js';

const runs = Number(process.argv[2] ?? 7);
const wanted = process.argv[3] === undefined ? undefined : Number(process.argv[3]);
const criteria = ['gates', 'types', 'collections'] as const;

/** Copies the notes of kb/notes/ beside themselves until the KB has at least `target` pairs; returns the copies made. */
async function growTo(root: string, target: number): Promise<number> {
  const folder = join(root, 'kb', 'notes');
  const originals = (await readdir(folder)).filter((name) => name.endsWith('.md') && name !== 'COLLECTION.md' && name !== 'README.md');
  const pairs = await selectPairs(root, { criteria: [...criteria] });
  const perNote = pairs.length / new Set(pairs.map((pair) => pair.note)).size;
  const base = pairs.length;
  const copies = Math.max(0, Math.ceil((target - base) / perNote));
  for (let index = 0; index < copies; index += 1) {
    const name = originals[index % originals.length] as string;
    const round = Math.floor(index / originals.length) + 1;
    const text = await readFile(join(folder, name), 'utf8');
    await writeFile(join(folder, name.replace(/\.md$/, `-copy-${round}.md`)), text);
  }
  return copies;
}
const corpus = fileURLToPath(new URL('../test/fixtures/corpus/commonplace-kb', import.meta.url));
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};
const record = (pair: PairStatus, index: number): ResultRecord => ({
  note: pair.note,
  criterion: pair.criterion,
  noteSha256: pair.noteSha256,
  criterionSha256: pair.criterionSha256,
  outcome: (['pass', 'warn', 'fail'] as const)[index % 3] as 'pass',
  profile: 'sonnet',
  model: 'claude-sonnet-4-5-20250929',
  run: 'gates/2026-11-10-bench-01',
  launch: `gates/2026-11-10-bench-01/batch-${Math.floor(index / 100)}/pair-${index}/1`,
  body: `## Findings\n\nThe note ${pair.note} was read against ${pair.criterion}; nothing in it matches the failure mode.\n\nResult: ${(['pass', 'warn', 'fail'] as const)[index % 3]}\n`,
});

if (process.argv[2] === '--child') {
  // The measured process: only status runs here, so its peak RSS is status's own (plus Node and tsx).
  const [, , , root, count] = process.argv as string[];
  const times: number[] = [];
  const cpus: number[] = [];
  let fresh = 0;
  let firstRssMiB = 0;
  const baseRssMiB = process.resourceUsage().maxRSS / 1024;
  for (let run = 0; run < Number(count); run += 1) {
    const started = performance.now();
    const cpu = process.cpuUsage();
    const status = await reviewStatus(root as string, { criteria: ['gates', 'types', 'collections'] });
    times.push(performance.now() - started);
    const used = process.cpuUsage(cpu);
    cpus.push((used.user + used.system) / 1000);
    fresh = status.counts.fresh;
    if (run === 0) firstRssMiB = process.resourceUsage().maxRSS / 1024;
  }
  process.stdout.write(JSON.stringify({ times, cpus, fresh, baseRssMiB, firstRssMiB, rssMiB: process.resourceUsage().maxRSS / 1024 }));
  process.exit(0);
}

const loadBefore = (await readFile('/proc/loadavg', 'utf8').catch(() => '?')).split(' ').slice(0, 3).join(' ');
const root = await mkdtemp(join(tmpdir(), 'bench-review-status-'));
try {
  await cp(corpus, root, { recursive: true });
  const copies = wanted === undefined ? 0 : await growTo(root, wanted);
  const pairs = await selectPairs(root, { criteria: [...criteria] });
  if (wanted !== undefined && pairs.length < wanted) throw new Error(`grew the KB to ${pairs.length} pairs, fewer than ${wanted}`);
  let started = performance.now();
  for (const [index, pair] of pairs.entries()) await writeResultFile(root, record(pair, index), { fsync: false });
  const setupMs = performance.now() - started;

  // One fsynced write, as the sweep does it (file and directory flushed), on a sample.
  const sample = pairs.slice(0, 200);
  started = performance.now();
  for (const [index, pair] of sample.entries()) await writeResultFile(root, record(pair, index), { fsync: true });
  const fsyncWriteMs = (performance.now() - started) / sample.length;

  // A fresh process for the measured runs: its first run is what a CLI invocation pays (JIT cold).
  const child = await execa('node', ['--import', 'tsx', fileURLToPath(import.meta.url), '--child', root, String(runs)], {
    cwd: fileURLToPath(new URL('..', import.meta.url)),
  });
  const { times, cpus, fresh, baseRssMiB, firstRssMiB, rssMiB } = JSON.parse(child.stdout) as {
    times: number[];
    cpus: number[];
    fresh: number;
    baseRssMiB: number;
    firstRssMiB: number;
    rssMiB: number;
  };
  const ms = (value: number) => `${value.toFixed(0)} ms`;
  console.log(
    `review status over the shared corpus${copies > 0 ? ` grown by ${copies} note copies` : ''} (${pairs.length} pairs, ${fresh} fresh; ${runs} runs in a fresh process)`,
  );
  console.log(`  setup: wrote ${pairs.length} result files in ${ms(setupMs)} (fsync off); one fsynced write ${fsyncWriteMs.toFixed(2)} ms`);
  console.log(`  first run (cold)  ${ms(times[0] as number)} wall, ${ms(cpus[0] as number)} CPU`);
  console.log(`  median            ${ms(median(times))} wall (min ${ms(Math.min(...times))}, max ${ms(Math.max(...times))}), ${ms(median(cpus))} CPU`);
  console.log(
    `  peak RSS          ${firstRssMiB.toFixed(0)} MiB after one run, ${rssMiB.toFixed(0)} MiB after ${runs} (Node and tsx alone: ${baseRssMiB.toFixed(0)} MiB)`,
  );
  if (fresh !== pairs.length) throw new Error(`expected every pair fresh, got ${fresh} of ${pairs.length}`);

  // End to end: the compiled command, as an operator types it (Node's start-up and module loading included);
  // its CPU time through /usr/bin/time where there is one (the wall time is the machine's load as much as the command's).
  // Each round: the status cache deleted (the first status ever, or after the cache is lost: every file read, the
  // cache written), then the same command again (warm: nothing changed since, every kept entry stands).
  const cli = fileURLToPath(new URL('../bin/commonplace.js', import.meta.url));
  const timed = existsSync('/usr/bin/time');
  const command = async (): Promise<{ wall: number; cpu: number | undefined }> => {
    const started = performance.now();
    const done = timed
      ? await execa('/usr/bin/time', ['-f', 'cpu %U %S', 'node', cli, 'review', 'status', '--kb', root], { reject: false })
      : await execa('node', [cli, 'review', 'status', '--kb', root], { reject: false });
    const wall = performance.now() - started;
    if (done.exitCode !== 0) throw new Error(`review status exited ${done.exitCode}: ${done.stderr}`);
    const cpu = /cpu ([\d.]+) ([\d.]+)\s*$/.exec(done.stderr);
    return { wall, cpu: cpu ? (Number(cpu[1]) + Number(cpu[2])) * 1000 : undefined };
  };
  const cold: { wall: number; cpu: number | undefined }[] = [];
  const warm: { wall: number; cpu: number | undefined }[] = [];
  const cacheFile = join(root, ...STATUS_CACHE_FILE.split('/'));
  for (let run = 0; run < runs; run += 1) {
    await rm(cacheFile, { force: true });
    cold.push(await command());
    if (!existsSync(cacheFile)) throw new Error(`review status wrote no cache at ${cacheFile}`);
    warm.push(await command());
  }
  const line = (label: string, rounds: { wall: number; cpu: number | undefined }[]): string => {
    const walls = rounds.map((round) => round.wall);
    const cpus = rounds.flatMap((round) => (round.cpu === undefined ? [] : [round.cpu]));
    const cpuText = cpus.length > 0 ? `, ${ms(median(cpus))} CPU (user + system; min ${ms(Math.min(...cpus))})` : '';
    return `  ${label.padEnd(18)}${ms(median(walls))} wall (min ${ms(Math.min(...walls))}, max ${ms(Math.max(...walls))})${cpuText}`;
  };
  console.log(`  \`commonplace review status\` end to end, median of ${runs} rounds:`);
  console.log(line('  no cache', cold));
  console.log(line('  warm cache', warm));
  console.log(
    `  cache file        ${((await stat(cacheFile)).size / 2 ** 20).toFixed(1)} MiB; load average ${loadBefore} before, ${(await readFile('/proc/loadavg', 'utf8').catch(() => '?')).split(' ').slice(0, 3).join(' ')} after`,
  );
} finally {
  await rm(root, { recursive: true, force: true });
}
