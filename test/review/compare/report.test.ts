import { execFile } from 'node:child_process';
import { appendFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, test } from '@jest/globals';
import { writeCompareReport } from '../../../src/activities/review/compare/report-files.js';
import { buildReport } from '../../../src/review/compare/report.js';
import { renderHtml, renderMarkdown } from '../../../src/review/compare/render.js';
import { reportLines } from '../../../src/review/compare/report-lines.js';
import {
  LABELS_ROUTE,
  routeFileName,
  type Agreement,
  type CompareReport,
  type CompareSample,
  type Label,
  type RouteVerdict,
  type Verdict,
} from '../../../src/review/compare/types.js';
import { expectShape } from '../../helpers/json-shape.js';
import { ALWAYS_PASS, CHEAP, compareRunFixture, GATE, REFERENCE, removeCompareFixtures, ROUTES, SAMPLE, TYPE, VERDICTS } from './fixture.js';

afterAll(removeCompareFixtures);

const run = promisify(execFile);

const find = (agreements: readonly Agreement[], route: string, reference: string): Agreement => {
  const found = agreements.find((a) => a.route === route && a.reference === reference);
  if (!found) throw new Error(`no agreement of ${route} against ${reference}`);
  return found;
};
const criterion = (report: CompareReport, id: string) => report.criteria.find((c) => c.criterion === id)?.agreements ?? [];

const label = (note: string, verdict: Label['verdict']): Label => ({ note, criterion: GATE, verdict, by: 'operator', at: '2026-01-01T00:00:00Z' });
const LABELS = [
  label('kb/notes/g-08.md', 'fail'),
  label('kb/notes/g-09.md', 'fail'),
  label('kb/notes/g-10.md', 'fail'),
  label('kb/notes/g-11.md', 'fail'),
  label('kb/notes/g-11.md', 'pass'),
];

describe('the compare report', () => {
  const report = buildReport({ runId: 'r', sample: SAMPLE, routes: ROUTES, verdicts: VERDICTS, labels: [] });

  test('every route but the reference is scored against the first route, per criterion', () => {
    expect(report.reference).toBe(REFERENCE);
    const gate = find(criterion(report, GATE), CHEAP, REFERENCE);
    expect(gate.n).toBe(20);
    expect(gate.raw).toBeCloseTo(0.8, 12);
    expect(gate.kappa).toBeCloseTo(0.6, 12);
    expect(gate.matrix).toEqual([
      [8, 0, 2],
      [0, 0, 0],
      [2, 0, 8],
    ]);
    const type = find(criterion(report, TYPE), CHEAP, REFERENCE);
    expect(type.raw).toBeCloseTo(0.75, 12);
    expect(type.kappa).toBeCloseTo(0.6, 12);
    expect(criterion(report, GATE).map((a) => a.route)).toEqual([CHEAP, ALWAYS_PASS]);
  });

  test('the overall figures pool every criterion: κ = (32·25 − 424) / (1024 − 424)', () => {
    const overall = find(report.overall, CHEAP, REFERENCE);
    expect(overall.n).toBe(32);
    expect(overall.matrix).toEqual([
      [13, 1, 2],
      [1, 2, 0],
      [2, 1, 10],
    ]);
    expect(overall.kappa).toBeCloseTo(376 / 600, 12);
    const [lower, upper] = overall.kappaInterval ?? [NaN, NaN];
    expect(lower).toBeLessThan(376 / 600);
    expect(upper).toBeGreaterThan(376 / 600);
  });

  test('the route that always says pass has κ 0 on every criterion and overall', () => {
    for (const agreements of [criterion(report, GATE), criterion(report, TYPE), report.overall]) expect(find(agreements, ALWAYS_PASS, REFERENCE).kappa).toBe(0);
    expect(find(criterion(report, TYPE), ALWAYS_PASS, REFERENCE).raw).toBeCloseTo(0.5, 12);
  });

  test('pass↔fail flips are listed with both sides reasons, and pass↔warn is not a flip', () => {
    const flips = find(criterion(report, GATE), CHEAP, REFERENCE).flips;
    expect(flips.map((f) => f.note)).toEqual(['kb/notes/g-08.md', 'kb/notes/g-09.md', 'kb/notes/g-10.md', 'kb/notes/g-11.md']);
    expect(flips[0]).toEqual({
      note: 'kb/notes/g-08.md',
      criterion: GATE,
      reference: 'pass',
      route: 'fail',
      referenceReasons: [`${REFERENCE} finds pass on kb/notes/g-08.md`],
      routeReasons: [`${CHEAP} finds fail on kb/notes/g-08.md`],
    });
    expect(find(criterion(report, TYPE), CHEAP, REFERENCE).flips).toEqual([]);
  });

  test('dollars and tokens per pair are each route own, and unknown where a verdict has no price', () => {
    expect(report.costs).toEqual([
      { route: REFERENCE, pairs: 32, costUsdPerPair: null, tokensPerPair: { input: 1000, output: 100, cacheRead: 0, cacheWrite: 0 } },
      { route: CHEAP, pairs: 32, costUsdPerPair: expect.closeTo(0.002, 12), tokensPerPair: { input: 1000, output: 100, cacheRead: 0, cacheWrite: 0 } },
      { route: ALWAYS_PASS, pairs: 32, costUsdPerPair: 0, tokensPerPair: { input: 1000, output: 100, cacheRead: 0, cacheWrite: 0 } },
    ]);
  });

  test('with labels every route, the reference too, is also scored against the labels, the last label of a pair winning', () => {
    const labelled = buildReport({ runId: 'r', sample: SAMPLE, routes: ROUTES, verdicts: VERDICTS, labels: LABELS });
    const gate = criterion(labelled, GATE);
    expect(gate.filter((a) => a.reference === LABELS_ROUTE).map((a) => a.route)).toEqual(ROUTES);
    // labels fail, fail, fail, pass; the cheap route fail, fail, pass, pass: [[1,0,0],[0,0,0],[1,0,2]], κ = (12 − 8) / (16 − 8)
    expect(find(gate, CHEAP, LABELS_ROUTE)).toMatchObject({
      n: 4,
      matrix: [
        [1, 0, 0],
        [0, 0, 0],
        [1, 0, 2],
      ],
      raw: 0.75,
      kappa: 0.5,
    });
    // the reference pass, pass, fail, fail: [[0,0,1],[0,0,0],[2,0,1]], κ = (4 − 8) / (16 − 8)
    expect(find(gate, REFERENCE, LABELS_ROUTE)).toMatchObject({ n: 4, raw: 0.25, kappa: -0.5 });
    expect(find(gate, REFERENCE, LABELS_ROUTE).flips[0]?.referenceReasons).toEqual(['labelled fail by operator at 2026-01-01T00:00:00Z']);
    expect(
      criterion(labelled, TYPE)
        .filter((a) => a.reference === LABELS_ROUTE)
        .every((a) => a.n === 0 && a.kappa === null),
    ).toBe(true);
  });

  test('the Markdown says which reference each figure is against and prints the band beside κ', () => {
    const markdown = renderMarkdown(buildReport({ runId: 'r', sample: SAMPLE, routes: ROUTES, verdicts: VERDICTS, labels: LABELS }));
    expect(markdown).toContain(`| ${CHEAP} | ${REFERENCE} (the reference route) | 32 | 0.78 | 0.63 [`);
    expect(markdown).toMatch(/0\.63 \[-?\d\.\d\d, \d\.\d\d\] — monitoring only/);
    expect(markdown).toContain(`| ${CHEAP} | ${REFERENCE} (the reference route) | 20 | 0.80 | 0.60 [`);
    expect(markdown).toContain(`| ${CHEAP} | the operator's labels | 4 | 0.75 | 0.50 [`);
    expect(markdown).toContain('| 0.00 [0.00, 0.00] — not usable (κ < 0.4) |');
    expect(markdown).toContain(`- \`kb/notes/g-08.md\`: ${REFERENCE} says pass, ${CHEAP} says fail`);
  });
});

describe('small samples and perfect agreement read as what they are', () => {
  const agreeing = (route: string, note: string, criterion: string, said: Verdict): RouteVerdict => ({
    ...VERDICTS[0]!,
    route,
    note,
    criterion,
    verdict: said,
    reasons: [],
  });

  test('a criterion where both routes agree 2 of 2 reads as agreement, not as an undefined κ in red', () => {
    const sample: CompareSample = {
      seed: 1,
      size: 2,
      perCriterionMin: 2,
      pairs: ['kb/notes/a.md', 'kb/notes/b.md'].map((note) => ({ note, criterion: GATE, kind: 'gate:frontmatter' })),
    };
    const verdicts = sample.pairs.flatMap((pair) => [agreeing(REFERENCE, pair.note, GATE, 'pass'), agreeing(CHEAP, pair.note, GATE, 'pass')]);
    const report = buildReport({ runId: 'r', sample, routes: [REFERENCE, CHEAP], verdicts, labels: [] });
    const markdown = renderMarkdown(report);
    expect(markdown).toContain(
      `| ${CHEAP} | ${REFERENCE} (the reference route) | 2 | 1.00 | both pairs agree (both pass): κ is not defined when both sides give one verdict throughout; too few pairs for a band: 2 of the 30 a κ needs |`,
    );
    expect(markdown).not.toMatch(/undefined/);
    const html = renderHtml(report);
    expect(html).toContain('<td class="band-agree">both pairs agree (both pass)');
    expect(html).not.toMatch(/<td class="band-(undefined|unusable)">/);
    expect(reportLines(report)[0]).toBe(
      `${CHEAP} against ${REFERENCE}: n 2, agreement 100 %, every pair pass on both sides (κ not defined), 0 pass↔fail flips`,
    );
  });

  test('at the default size over 48 criteria every criterion is too small for κ, and the report says so with the sample that would do', () => {
    const criteria = Array.from({ length: 48 }, (_, i) => `prose/gate-${String(i).padStart(2, '0')}`);
    const pairs = criteria.slice(0, 40).map((criterion, i) => ({ note: `kb/notes/n-${i}.md`, criterion, kind: 'gate:prose' }));
    const sample: CompareSample = { seed: 1, size: 40, perCriterionMin: 2, pairs };
    const verdicts = pairs.flatMap((pair, i) => [
      agreeing(REFERENCE, pair.note, pair.criterion, i % 3 === 0 ? 'fail' : 'pass'),
      agreeing(CHEAP, pair.note, pair.criterion, i % 5 === 0 ? 'fail' : 'pass'),
    ]);
    const report = buildReport({ runId: 'r', sample, routes: [REFERENCE, CHEAP], verdicts, labels: [] });
    const markdown = renderMarkdown(report);
    expect(markdown).toContain(
      'Per criterion, κ gets a band from 30 pairs on; 40 of the 40 criteria in the sample have fewer, so their κ says too little. A sample with enough: `--per-criterion-min 30 --size 1200`',
    );
    expect(markdown).not.toMatch(/undefined/);
    expect(markdown.match(/too few pairs for a band: 1 of the 30 a κ needs \|/g)).toHaveLength(40);
    // The 40 pairs pooled reach the rule: the overall figure has its band.
    expect(markdown).toMatch(
      new RegExp(
        `\\| ${CHEAP} \\| ${REFERENCE} \\(the reference route\\) \\| 40 \\| \\d\\.\\d\\d \\| -?\\d\\.\\d\\d \\[[^\\]]+\\] — (may gate|monitoring only|not usable)`,
      ),
    );
    expect(renderHtml(report)).toContain(
      '<p class="sample-note">Per criterion, κ gets a band from 30 pairs on; 40 of the 40 criteria in the sample have fewer',
    );
  });
});

describe('the report files', () => {
  test('writeCompareReport writes report.json matching its schema, report.md and report.html', async () => {
    const { checkout, runId, runDir } = await compareRunFixture();
    const report = await writeCompareReport(checkout, runId, { routes: ROUTES });
    const document = expectShape(await readFile(path.join(runDir, 'report.json'), 'utf8'), 'compare-report');
    expect(document.runId).toBe(runId);
    expect(report.criteria.map((c) => c.criterion)).toEqual([GATE, TYPE].sort());
    expect(await readFile(path.join(runDir, 'report.md'), 'utf8')).toContain(`# Compare run ${runId}`);
    expect(await readFile(path.join(runDir, 'report.html'), 'utf8')).toContain('<script type="application/json" id="compare-report">');
  });

  test('a rewrite keeps the routes and reference of the earlier report', async () => {
    const { checkout, runId } = await compareRunFixture();
    await writeCompareReport(checkout, runId, { routes: [CHEAP, REFERENCE], reference: CHEAP });
    const again = await writeCompareReport(checkout, runId);
    expect(again.routes).toEqual([CHEAP, REFERENCE]);
    expect(again.reference).toBe(CHEAP);
  });

  test('a malformed verdict line stops the report naming the file and line, and nothing is written', async () => {
    const { checkout, runId, runDir } = await compareRunFixture();
    await appendFile(path.join(runDir, 'verdicts', routeFileName(CHEAP)), '{"route": "x", "verdict": "maybe"}\n');
    await expect(writeCompareReport(checkout, runId)).rejects.toThrow(new RegExp(`${runId}/verdicts/${routeFileName(CHEAP)} line 33: `));
    await expect(readFile(path.join(runDir, 'report.json'))).rejects.toThrow(/ENOENT/);
  });

  test('a run directory without sample.json is refused naming it', async () => {
    const checkout = await mkdtemp(path.join(tmpdir(), 'compare-'));
    await expect(writeCompareReport(checkout, 'nothing-here')).rejects.toThrow('nothing-here/sample.json is missing');
    await rm(checkout, { recursive: true, force: true });
  });
});

describe('the HTML page in a browser', () => {
  test('headless Chromium runs the page script and shows every criterion matrix with its counts', async () => {
    const chromium = await run('sh', ['-c', 'command -v chromium']).then(
      ({ stdout }) => stdout.trim(),
      () => '',
    );
    if (!chromium) throw new Error('chromium is not installed: scripts/test.sh installs it (apt-get install -y chromium)');
    const { checkout, runId, runDir } = await compareRunFixture();
    await writeCompareReport(checkout, runId, { routes: ROUTES });
    const html = path.join(runDir, 'report.html');
    const profile = await mkdtemp(path.join(tmpdir(), 'chromium-profile-'));
    const { stdout: dom } = await run(
      chromium,
      ['--headless', '--no-sandbox', '--disable-gpu', `--user-data-dir=${profile}`, '--dump-dom', pathToFileURL(html).href],
      { maxBuffer: 32 * 1024 * 1024 },
    );
    expect(dom).toContain('data-matrices-drawn="4"');
    for (const id of [GATE, TYPE]) {
      for (const route of [CHEAP, ALWAYS_PASS])
        expect(dom).toContain(`<table class="heatmap" data-criterion="${id}" data-route="${route}" data-reference="${REFERENCE}">`);
    }
    const gateTable = dom.slice(dom.indexOf(`data-criterion="${GATE}" data-route="${CHEAP}"`));
    const cells = [...gateTable.slice(0, gateTable.indexOf('</table>')).matchAll(/data-cell="(\w+\/\w+)"[^>]*>(\d+)</g)].map((m) => `${m[1]}=${m[2]}`);
    expect(cells).toEqual([
      'pass/pass=8',
      'pass/warn=0',
      'pass/fail=2',
      'warn/pass=0',
      'warn/warn=0',
      'warn/fail=0',
      'fail/pass=2',
      'fail/warn=0',
      'fail/fail=8',
    ]);
    await rm(profile, { recursive: true, force: true });
  });
});
