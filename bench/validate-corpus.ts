/**
 * Benchmark: validate the whole shared corpus and print files/s and peak memory.
 *
 *   npx tsx bench/validate-corpus.ts [corpus-dir] [--runs N]
 *
 * The corpus defaults to $COMMONPLACE_CORPUS, else the vendored copy under
 * test/fixtures/corpus/commonplace-kb. Each run uses a fresh TypeRegistry, so every
 * run pays schema compilation again; the first run also pays module warm-up (JIT).
 * The breakdown separates reading the bytes (I/O), compiling schemas, and the rest
 * (parsing and validating), to show where the time goes.
 */
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseNote } from '../src/kb/notes.js';
import { TypeRegistry } from '../src/kb/type-registry.js';
import { collectFiles, validateFiles } from '../src/kb/validate.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const runsFlag = args.indexOf('--runs');
const runs = runsFlag === -1 ? 5 : Number(args[runsFlag + 1]);
const positional = args.filter((arg, index) => !arg.startsWith('--') && (runsFlag === -1 || index !== runsFlag + 1));
const corpus = path.resolve(positional[0] ?? process.env['COMMONPLACE_CORPUS'] ?? path.join(here, '../test/fixtures/corpus/commonplace-kb'));

const ms = (value: number): string => `${value.toFixed(0)} ms`;

const files = await collectFiles(corpus, [], corpus);

// I/O alone: read every file's bytes once, as validation does.
const ioStarted = performance.now();
let bytes = 0;
for (let index = 0; index < files.length; index += 16) {
  const chunk = await Promise.all(files.slice(index, index + 16).map((file) => readFile(path.join(corpus, file))));
  for (const buffer of chunk) bytes += buffer.length;
}
const ioMs = performance.now() - ioStarted;

// Parsing alone (frontmatter YAML, headings, links, dates), warm, from bytes already in memory.
const notes = await Promise.all(files.filter((file) => file.endsWith('.md')).map(async (file) => ({ file, bytes: await readFile(path.join(corpus, file)) })));
for (const note of notes) parseNote(note.bytes, note.file);
const parseStarted = performance.now();
for (const note of notes) parseNote(note.bytes, note.file);
const parseMs = performance.now() - parseStarted;

const timings: { totalMs: number; compileMs: number; failures: number; warnings: number }[] = [];
for (let run = 0; run < runs; run += 1) {
  const started = performance.now();
  const report = await validateFiles(files, { repoRoot: corpus, registry: new TypeRegistry(corpus) });
  timings.push({
    totalMs: performance.now() - started,
    compileMs: report.stats.compileMs,
    failures: report.summary.failures,
    warnings: report.summary.warnings,
  });
}
const first = timings[0];
if (first === undefined) throw new Error('--runs must be at least 1');
const sorted = [...timings].sort((a, b) => a.totalMs - b.totalMs);
const median = sorted[Math.floor(sorted.length / 2)] ?? first;
const peakRssMiB = process.resourceUsage().maxRSS / 1024;

console.log(`corpus        ${corpus}`);
console.log(`machine       ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'}), Node ${process.version}`);
console.log(`files         ${files.length} (${(bytes / (1024 * 1024)).toFixed(1)} MiB), ${first.failures} failures, ${first.warnings} warnings`);
console.log(`read only     ${ms(ioMs)} (every file's bytes, 16 at a time, warm page cache)`);
console.log(`parse only    ${ms(parseMs)} (${notes.length} markdown files from memory, warm)`);
console.log(
  `first run     ${ms(first.totalMs)}  ${(files.length / (first.totalMs / 1000)).toFixed(0)} files/s  (schema loading and compilation ${ms(first.compileMs)}, ${((100 * first.compileMs) / first.totalMs).toFixed(0)}%)`,
);
console.log(
  `median of ${runs}   ${ms(median.totalMs)}  ${(files.length / (median.totalMs / 1000)).toFixed(0)} files/s  (schema loading and compilation ${ms(median.compileMs)}, ${((100 * median.compileMs) / median.totalMs).toFixed(0)}%)`,
);
console.log(`process       ${ms(process.uptime() * 1000)} wall since start, including module loading`);
console.log(`peak memory   ${peakRssMiB.toFixed(0)} MiB resident (maxRSS)`);
