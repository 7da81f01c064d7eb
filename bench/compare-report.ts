// bench/compare-report: how long a compare report takes to build and render — 1,000 bootstrap
// resamples per interval, each route against the reference and against labels — for a sample the size
// of a real compare run (criteria × pairs per criterion, three routes), as `review compare label`
// rewrites it after every session. Prints the median and the slowest of N builds.
// Usage: npx tsx bench/compare-report.ts [criteria=40] [pairs per criterion=10] [runs=5]
import { buildReport } from '../src/review/compare/report.js';
import { renderHtml, renderMarkdown } from '../src/review/compare/render.js';
import { seededRandom } from '../src/review/compare/stats.js';
import { verdicts, type CompareSample, type Label, type RouteVerdict } from '../src/review/compare/types.js';

const criteria = Number(process.argv[2] ?? 40);
const perCriterion = Number(process.argv[3] ?? 10);
const runs = Number(process.argv[4] ?? 5);
const routes = ['claude:pair', 'claude:bundle', 'anthropic-haiku:pair'];
const random = seededRandom(1);

const pairs = Array.from({ length: criteria * perCriterion }, (_, i) => ({
  note: `kb/notes/n-${i % perCriterion}.md`,
  criterion: `lens/gate-${Math.floor(i / perCriterion)}`,
  kind: 'gate:lens',
}));
const sample: CompareSample = { seed: 1, size: pairs.length, perCriterionMin: perCriterion, pairs };
const said: RouteVerdict[] = [];
for (const pair of pairs) {
  const truth = verdicts[Math.floor(random() * 3)] ?? 'pass';
  for (const route of routes) {
    const verdict = random() < 0.8 ? truth : (verdicts[Math.floor(random() * 3)] ?? 'pass');
    said.push({
      route,
      ...pair,
      verdict,
      reasons: [`${route} says ${verdict}`],
      review: '',
      executor: 'fake',
      model: null,
      tokens: { input: 3000, output: 200, cacheRead: 0, cacheWrite: 0 },
      costUsd: 0.002,
      criterionHash: 'c',
      noteHash: 'n',
    });
  }
}
const labels: Label[] = pairs
  .slice(0, pairs.length / 4)
  .map((pair) => ({ note: pair.note, criterion: pair.criterion, verdict: 'pass', by: 'bench', at: '2026-01-01T00:00:00Z' }));

const times: number[] = [];
let size = 0;
for (let run = 0; run < runs; run += 1) {
  const start = process.hrtime.bigint();
  const report = buildReport({ runId: 'bench', sample, routes, verdicts: said, labels });
  size = renderMarkdown(report).length + renderHtml(report).length;
  times.push(Number(process.hrtime.bigint() - start) / 1e6);
}
times.sort((a, b) => a - b);
const intervals = (criteria + 1) * (routes.length - 1 + routes.length);
console.log(
  `compare-report: ${criteria} criteria × ${perCriterion} pairs, ${routes.length} routes, labels on a quarter: ${intervals} intervals of 1,000 resamples`,
);
console.log(
  `build and render  median ${(times[Math.floor(times.length / 2)] as number).toFixed(0)} ms   slowest ${(times[times.length - 1] as number).toFixed(0)} ms   (${(size / 1024).toFixed(0)} KiB of Markdown and HTML)`,
);
