/** A compare run's directory with scripted verdicts disagreeing at known rates, for the report's and the commands' tests. */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { compareRunDir } from '../../../src/review/compare/run-files.js';
import { routeFileName, type CompareSample, type RouteVerdict, type Verdict } from '../../../src/review/compare/types.js';

export const REFERENCE = 'claude:pair';
export const CHEAP = 'anthropic-haiku:bundle';
export const ALWAYS_PASS = 'fake:pair';
export const ROUTES = [REFERENCE, CHEAP, ALWAYS_PASS];
export const GATE = 'kb/instructions/review-gates/title-as-claim.md';
export const TYPE = 'kb/types/note.md';
export const CRITERION_HASH = 'c'.repeat(64);

interface Scripted {
  note: string;
  criterion: string;
  reference: Verdict;
  cheap: Verdict;
}

/** `count` pairs of a criterion with these two verdicts, numbered from `from`. */
const rows = (criterion: string, from: number, count: number, reference: Verdict, cheap: Verdict): Scripted[] =>
  Array.from({ length: count }, (_, i) => ({ note: `kb/notes/${criterion === GATE ? 'g' : 't'}-${String(from + i).padStart(2, '0')}.md`, criterion, reference, cheap }));

/**
 * The gate: 20 pairs, matrix [[8,0,2],[0,0,0],[2,0,8]] (raw 0.8, κ 0.6). The type: 12 pairs, matrix
 * [[5,1,0],[1,2,0],[0,1,2]] (raw 0.75, κ 0.6). The always-pass route says pass on all 32.
 */
export const SCRIPT: Scripted[] = [
  ...rows(GATE, 0, 8, 'pass', 'pass'),
  ...rows(GATE, 8, 2, 'pass', 'fail'),
  ...rows(GATE, 10, 2, 'fail', 'pass'),
  ...rows(GATE, 12, 8, 'fail', 'fail'),
  ...rows(TYPE, 0, 5, 'pass', 'pass'),
  ...rows(TYPE, 5, 1, 'pass', 'warn'),
  ...rows(TYPE, 6, 1, 'warn', 'pass'),
  ...rows(TYPE, 7, 2, 'warn', 'warn'),
  ...rows(TYPE, 9, 1, 'fail', 'warn'),
  ...rows(TYPE, 10, 2, 'fail', 'fail'),
];

export const SAMPLE: CompareSample = {
  seed: 11,
  size: SCRIPT.length,
  perCriterionMin: 8,
  pairs: SCRIPT.map(({ note, criterion }) => ({ note, criterion, kind: criterion === GATE ? 'gate:semantic' : 'type' })),
};

function verdict(route: string, pair: Scripted, said: Verdict, costUsd: number | null): RouteVerdict {
  return {
    route,
    note: pair.note,
    criterion: pair.criterion,
    verdict: said,
    reasons: [`${route} finds ${said} on ${pair.note}`],
    review: `verdict: ${said}\n`,
    executor: route.split(':')[0] ?? route,
    model: null,
    tokens: { input: 1000, output: 100, cacheRead: 0, cacheWrite: 0 },
    costUsd,
    criterionHash: CRITERION_HASH,
    noteHash: 'n'.repeat(64),
  };
}

export const VERDICTS: RouteVerdict[] = [
  ...SCRIPT.map((pair) => verdict(REFERENCE, pair, pair.reference, null)),
  ...SCRIPT.map((pair) => verdict(CHEAP, pair, pair.cheap, 0.002)),
  ...SCRIPT.map((pair) => verdict(ALWAYS_PASS, pair, 'pass', 0)),
];

/** A checkout (a temporary directory) holding one compare run of the scripted verdicts, with no report yet. */
export async function compareRunFixture(runId = 'compare-fixture'): Promise<{ checkout: string; runId: string; runDir: string }> {
  const checkout = await mkdtemp(path.join(tmpdir(), 'compare-'));
  const runDir = compareRunDir(checkout, runId);
  await mkdir(path.join(runDir, 'verdicts'), { recursive: true });
  await writeFile(path.join(runDir, 'sample.json'), JSON.stringify(SAMPLE, null, 2));
  for (const route of ROUTES) {
    const lines = VERDICTS.filter((v) => v.route === route).map((v) => JSON.stringify(v));
    await writeFile(path.join(runDir, 'verdicts', routeFileName(route)), `${lines.join('\n')}\n`);
  }
  return { checkout, runId, runDir };
}
