/** A compare run's fixture: the example KB copied, two fake routes scripted to disagree on one gate, their ledgers. */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CompareInput } from '../../src/review/compare/run-types.js';
import type { CompareSample, RouteVerdict } from '../../src/review/compare/types.js';
import { kbCopy, exampleKb } from '../helpers/kb.js';
import { ledgerStarts, fakeScenario, scratch, type FakeRule } from '../helpers/fake.js';
import { fakeProfilesFile } from '../helpers/probe.js';

/** The gate route `strict` fails on every note, where `lenient` passes: the scripted disagreement. */
export const DISPUTED = 'sentence/stock-phrases';
export const CRITERIA = ['sentence/*', 'frontmatter/*'];

export interface CompareFixture {
  checkout: string;
  dir: string;
  profilesFile: string;
  ledgers: { lenient: string; strict: string };
  input: (runId: string, extra?: Partial<CompareInput>) => CompareInput;
  /** `review compare` over the fixture's checkout and profiles: the routes, the sample's size and seed, then `more`. */
  command: (routes: string, size: number, seed: number, ...more: string[]) => string[];
  /** The launches both routes have started so far. */
  launches: () => Promise<number>;
}

/** The example KB in a scratch checkout, with profiles `lenient` (passes everything) and `strict` (fails {@link DISPUTED}), each with its own ledger. */
export async function compareFixture(rules: { lenient?: FakeRule[]; strict?: FakeRule[] } = {}): Promise<CompareFixture> {
  const checkout = await kbCopy(exampleKb, { prefix: 'commonplace-compare-kb-' });
  const dir = await scratch();
  const lenient = await fakeScenario(join(await scratch()), rules.lenient ?? [{ attempts: [{ review: 'pass' }] }]);
  const strict = await fakeScenario(join(await scratch()), rules.strict ?? [{ attempts: [{ review: 'pass', outcomes: { [DISPUTED]: 'fail' } }] }]);
  const profilesFile = await fakeProfilesFile(dir, {
    lenient: { harness: 'fake', timeout: '2m', attempts: 3, env: lenient.env },
    strict: { harness: 'fake', timeout: '2m', attempts: 3, env: strict.env },
  });
  const input = (runId: string, extra: Partial<CompareInput> = {}): CompareInput => ({
    checkout,
    runId,
    routes: ['lenient:pair', 'strict:pair'],
    size: 8,
    seed: 3,
    perCriterionMin: 1,
    criteria: CRITERIA,
    notes: [],
    concurrency: 2,
    profilesFile,
    ...extra,
  });
  const command = (routes: string, size: number, seed: number, ...more: string[]) => [
    ...['review', 'compare', '--kb', checkout, '--profiles', profilesFile],
    ...['--routes', routes, '--size', String(size), '--seed', String(seed), ...more],
  ];
  const launches = async () => (await starts(lenient.ledger)).length + (await starts(strict.ledger)).length;
  return { checkout, dir, profilesFile, ledgers: { lenient: lenient.ledger, strict: strict.ledger }, input, command, launches };
}

export const compareDir = (checkout: string, runId: string) => join(checkout, 'kb', 'reports', 'state', 'review', 'compare', runId);

export async function readSample(checkout: string, runId: string): Promise<CompareSample> {
  return JSON.parse(await readFile(join(compareDir(checkout, runId), 'sample.json'), 'utf8')) as CompareSample;
}

export async function readRouteVerdicts(checkout: string, runId: string, file: string): Promise<RouteVerdict[]> {
  const text = await readFile(join(compareDir(checkout, runId), 'verdicts', file), 'utf8');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as RouteVerdict);
}

export const starts = ledgerStarts;

/** Every file under the KB's result tree with its bytes (empty when there is none). */
export async function resultFiles(checkout: string): Promise<Record<string, string>> {
  const root = join(checkout, 'kb', 'reports', 'state', 'review', 'results');
  const files = (await readdir(root, { recursive: true, withFileTypes: true }).catch(() => [])).filter((entry) => entry.isFile());
  const out: Record<string, string> = {};
  for (const entry of files) {
    const path = join(entry.parentPath, entry.name);
    out[path] = await readFile(path, 'utf8');
  }
  return out;
}
