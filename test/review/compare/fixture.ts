/** A compare run's directory with scripted verdicts disagreeing at known rates, for the report's and the commands' tests. */
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadCriterion } from '../../../src/review/criteria.js';
import { compareRunDir } from '../../../src/review/compare/run-files.js';
import { miniFixture } from '../helpers.js';
import { routeFileName, type CompareSample, type RouteVerdict, type Verdict } from '../../../src/review/compare/types.js';

export const REFERENCE = 'claude:pair';
export const CHEAP = 'anthropic-haiku:bundle';
export const ALWAYS_PASS = 'fake:pair';
export const ROUTES = [REFERENCE, CHEAP, ALWAYS_PASS];
/** Two gates of the mini fixture KB. */
export const GATE = 'frontmatter/title-gate';
export const TYPE = 'prose/body-gate';

interface Scripted {
  note: string;
  criterion: string;
  reference: Verdict;
  cheap: Verdict;
}

/** `count` pairs of a criterion with these two verdicts, numbered from `from`. */
const rows = (criterion: string, from: number, count: number, reference: Verdict, cheap: Verdict): Scripted[] =>
  Array.from({ length: count }, (_, i) => ({
    note: `kb/notes/${criterion === GATE ? 'g' : 't'}-${String(from + i).padStart(2, '0')}.md`,
    criterion,
    reference,
    cheap,
  }));

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
  pairs: SCRIPT.map(({ note, criterion }) => ({ note, criterion, kind: criterion === GATE ? 'gate:frontmatter' : 'gate:prose' })),
};

function verdict(route: string, pair: Scripted, said: Verdict, costUsd: number | null, hashes: Record<string, string> = {}): RouteVerdict {
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
    criterionHash: hashes[pair.criterion] ?? 'c'.repeat(64),
    noteHash: 'n'.repeat(64),
  };
}

/** Every route's scripted verdicts, given against the criterion hashes named (a placeholder hash otherwise). */
export const scriptedVerdicts = (hashes: Record<string, string> = {}): RouteVerdict[] => [
  ...SCRIPT.map((pair) => verdict(REFERENCE, pair, pair.reference, null, hashes)),
  ...SCRIPT.map((pair) => verdict(CHEAP, pair, pair.cheap, 0.002, hashes)),
  ...SCRIPT.map((pair) => verdict(ALWAYS_PASS, pair, 'pass', 0, hashes)),
];

export const VERDICTS = scriptedVerdicts();

const made: string[] = [];

/** Removes every checkout {@link compareRunFixture} made in this test file. */
export async function removeCompareFixtures(): Promise<void> {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}

/** A checkout (a temporary copy of the mini fixture KB) holding one compare run of the scripted verdicts, given against its gates as they stand; no report yet. */
export async function compareRunFixture(runId = 'compare-fixture'): Promise<{ checkout: string; runId: string; runDir: string }> {
  const checkout = await mkdtemp(path.join(tmpdir(), 'compare-'));
  made.push(checkout);
  await cp(miniFixture, checkout, { recursive: true });
  const hashes: Record<string, string> = {};
  for (const id of [GATE, TYPE]) {
    const loaded = await loadCriterion(checkout, id);
    if (!loaded.ok) throw new Error(`the mini fixture has no criterion ${id}: ${loaded.message}`);
    hashes[id] = loaded.criterion.sha256;
  }
  const verdicts = scriptedVerdicts(hashes);
  const runDir = compareRunDir(checkout, runId);
  await mkdir(path.join(runDir, 'verdicts'), { recursive: true });
  await writeFile(path.join(runDir, 'sample.json'), JSON.stringify(SAMPLE, null, 2));
  for (const route of ROUTES) {
    const lines = verdicts.filter((v) => v.route === route).map((v) => JSON.stringify(v));
    await writeFile(path.join(runDir, 'verdicts', routeFileName(route)), `${lines.join('\n')}\n`);
  }
  return { checkout, runId, runDir };
}
