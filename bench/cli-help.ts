// bench/cli-help: how long `commonplace … --help` takes, as an operator's shell sees it (a fresh Node
// process running the compiled CLI), for the top page and a few deep ones; and `--version`. Prints the
// median and the slowest of N runs per page, and Node's own start-up (`node -e 0`) for comparison.
// Usage: npx tsx bench/cli-help.ts [runs=9]   (after `npm run build`)
import { execa } from 'execa';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const runs = Number(process.argv[2] ?? 9);
const cli = fileURLToPath(new URL('../bin/commonplace.js', import.meta.url));
const pages = [['--help'], ['--version'], ['review', 'run', 'gates', '--help'], ['analysis', 'run', '--help'], ['validate', '--help'], ['worker', '--help']];

async function time(args: string[]): Promise<number[]> {
  const times: number[] = [];
  for (let run = 0; run < runs; run += 1) {
    const start = process.hrtime.bigint();
    await execa('node', args);
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return times.sort((a, b) => a - b);
}

const row = (label: string, times: number[]) =>
  `${label.padEnd(40)} median ${(times[Math.floor(times.length / 2)] as number).toFixed(0).padStart(5)} ms   slowest ${(times[times.length - 1] as number).toFixed(0).padStart(5)} ms`;

console.log(`cli-help: ${runs} runs per page (${join('bin', 'commonplace.js')})`);
console.log(row('node -e 0 (Node start-up alone)', await time(['-e', '0'])));
for (const page of pages) console.log(row(`commonplace ${page.join(' ')}`, await time([cli, ...page])));
