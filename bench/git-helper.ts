/**
 * What a Git command costs a process of a worker's size, started by the process itself and through the
 * Git helper (bin/git-runner.js, src/fs/git.ts's `runGitThroughHelper`).
 *
 *   npx tsx bench/git-helper.ts [megabytes=500] [commands=200] [touched=0.25]
 *
 * The process holds `megabytes` of memory and, between commands, writes to a `touched` share of its pages
 * as a running worker's heap does. Printed: CPU per command of this process and of every process it
 * started (Git and the helper included; each counted once it has ended), and wall time per command.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { git, runGitThroughHelper } from '../src/fs/git.js';

const megabytes = Number(process.argv[2] ?? 500);
const commands = Number(process.argv[3] ?? 200);
const touched = Number(process.argv[4] ?? 0.25);
const ticks = 100; // USER_HZ on Linux

const pages: Float64Array[] = [];
for (let index = 0; index < megabytes; index++) pages.push(new Float64Array(131_072).fill(index));
let next = 0;
/** Writes one value in each 4 KiB page of the next `touched` share of the memory held. */
function touch(): void {
  const count = Math.ceil(pages.length * touched);
  for (let step = 0; step < count; step++) {
    const block = pages[next++ % pages.length]!;
    for (let offset = 0; offset < block.length; offset += 512) block[offset]! += 1;
  }
}

/** CPU seconds of this process and of its ended children (utime, stime, cutime, cstime). */
function cpu(): number {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / ticks;
}

const repo = mkdtempSync(join(tmpdir(), 'commonplace-bench-git-'));
await git(repo, ['init', '-q']);

async function round(label: string): Promise<void> {
  const cpuBefore = cpu();
  const started = performance.now();
  for (let index = 0; index < commands; index++) {
    await git(repo, ['rev-parse', '--git-dir']);
    touch();
  }
  const wall = (performance.now() - started) / commands;
  // The helper's CPU is counted once it has ended (it ends after a few idle seconds) and been reaped.
  await new Promise((done) => setTimeout(done, 6000));
  const perCommand = ((cpu() - cpuBefore) * 1000) / commands;
  console.log(`| ${label} | ${perCommand.toFixed(1)} ms | ${wall.toFixed(1)} ms |`);
}

console.log(`${megabytes} MB held, ${commands} commands, ${Math.round(touched * 100)} % of the pages written between commands`);
console.log('| Git started | CPU per command (all processes) | wall per command |');
console.log('| --- | --- | --- |');
touch();
await round('by the process itself');
runGitThroughHelper();
await round('through the helper');
