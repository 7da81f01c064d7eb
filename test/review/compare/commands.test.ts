import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, test } from '@jest/globals';
import { readCalibrationRecord, recordStaleness, profileHashes } from '../../../src/review/compare/calibration-files.js';
import type { CompareReport, Label } from '../../../src/review/compare/types.js';
import { runCli } from '../../helpers/cli.js';
import { expectShape } from '../../helpers/json-shape.js';
import { ALWAYS_PASS, CHEAP, compareRunFixture, GATE, REFERENCE, removeCompareFixtures, ROUTES, TYPE } from './fixture.js';

afterAll(removeCompareFixtures);
import { writeCompareReport } from '../../../src/activities/review/compare/report-files.js';

const readLabels = async (runDir: string): Promise<Label[]> =>
  (await readFile(path.join(runDir, 'labels.jsonl'), 'utf8'))
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Label);

const reportOf = async (runDir: string) => JSON.parse(await readFile(path.join(runDir, 'report.json'), 'utf8')) as CompareReport;

describe('review compare label', () => {
  test('in the terminal each disagreement shows every route verdict and reasons, and p/w/f/s/q answers keep labels as given', async () => {
    const { checkout, runId, runDir } = await compareRunFixture();
    await writeCompareReport(checkout, runId, { routes: ROUTES });
    const result = await runCli(['review', 'compare', 'label', runId, '--kb', checkout, '--by', 'ada'], { input: 'f\nx\ns\nw\nq\n', encoding: 'utf8' });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain(
      `[1/19] kb/notes/g-08.md\n  criterion ${GATE}\n  ${REFERENCE}: pass\n    - ${REFERENCE} finds pass on kb/notes/g-08.md\n  ${CHEAP}: fail\n    - ${CHEAP} finds fail on kb/notes/g-08.md\n  ${ALWAYS_PASS}: pass`,
    );
    expect(result.stdout).toContain('`x` is not one of p, w, f, s, q');
    expect(result.stdout).toContain('Labelled 2 pairs (2 labels in all)');
    const labels = await readLabels(runDir);
    expect(labels.map((l) => [l.note, l.criterion, l.verdict, l.by])).toEqual([
      ['kb/notes/g-08.md', GATE, 'fail', 'ada'],
      ['kb/notes/g-10.md', GATE, 'warn', 'ada'],
    ]);
    const report = await reportOf(runDir);
    expect(
      report.criteria
        .find((c) => c.criterion === GATE)
        ?.agreements.filter((a) => a.reference === 'labels')
        .map((a) => [a.route, a.n]),
    ).toEqual(ROUTES.map((route) => [route, 2]));

    const again = await runCli(['review', 'compare', 'label', runId, '--kb', checkout], { input: 'q\n', encoding: 'utf8' });
    expect(again.stdout).toContain('[1/17] kb/notes/g-09.md');
  });

  test('a label file is appended whole and the report rewritten against the labels', async () => {
    const { checkout, runId, runDir } = await compareRunFixture();
    const file = path.join(checkout, 'labels.txt');
    await writeFile(file, `# pairs settled by hand\nkb/notes/g-08.md ${GATE} fail\n\nkb/notes/t-05.md ${TYPE} warn\n`);
    const result = await runCli(['review', 'compare', 'label', runId, '--kb', checkout, '--file', file, '--by', 'ada']);
    expect(result.stderr).toBe('');
    expect((await readLabels(runDir)).map((l) => [l.note, l.verdict])).toEqual([
      ['kb/notes/g-08.md', 'fail'],
      ['kb/notes/t-05.md', 'warn'],
    ]);
    expectShape(await readFile(path.join(runDir, 'report.json'), 'utf8'), 'compare-report');
    expect(await readFile(path.join(runDir, 'report.md'), 'utf8')).toContain("the operator's labels");
  });

  test('a label file with bad lines names each line and what is wrong, and nothing is written', async () => {
    const { checkout, runId, runDir } = await compareRunFixture();
    const file = path.join(checkout, 'labels.txt');
    await writeFile(file, `kb/notes/g-08.md ${GATE} fail\nkb/notes/g-09.md ${GATE} maybe\nkb/notes/nowhere.md ${GATE} pass\nkb/notes/g-10.md\n`);
    const result = await runCli(['review', 'compare', 'label', runId, '--kb', checkout, '--file', file]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('labels.txt line 2: verdict `maybe` must be pass, warn or fail');
    expect(result.stderr).toContain(`labels.txt line 3: kb/notes/nowhere.md × ${GATE} is not a pair of the run's sample`);
    expect(result.stderr).toContain('labels.txt line 4: expected `note criterion verdict`, got 1 field');
    expect(result.stderr).toContain('nothing was labelled');
    await expect(readFile(path.join(runDir, 'labels.jsonl'))).rejects.toThrow(/ENOENT/);
  });

  test('an unknown run is refused naming it', async () => {
    const { checkout } = await compareRunFixture();
    const result = await runCli(['review', 'compare', 'label', 'compare-none', '--kb', checkout, '--file', 'x']);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('compare run compare-none: compare-none/sample.json is missing');
  });
});

describe('review compare keep', () => {
  test('keeps one record per criterion that commonplace validate accepts, and a changed criterion makes it stale', async () => {
    const { checkout, runId } = await compareRunFixture();
    await writeCompareReport(checkout, runId, { routes: ROUTES });
    const result = await runCli(['review', 'compare', 'keep', runId, '--kb', checkout]);
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain(`${GATE}: kept in kb/reports/calibration/frontmatter_title-gate.json`);
    expect(result.stdout).toContain('2 calibration records kept against claude:pair');
    const validated = await runCli(['validate', '--kb', checkout, '--json', path.join(checkout, 'kb', 'reports', 'calibration')]);
    expect(validated.exitCode).toBe(0);
    expect((expectShape(String(validated.stdout), 'validate-files').summary as { calibrations: number }).calibrations).toBe(2);

    const read = await readCalibrationRecord(checkout, GATE);
    if (read.state !== 'read') throw new Error(`record not read: ${JSON.stringify(read)}`);
    expect(read.record.routes.find((r) => r.route === CHEAP)?.kappa).toBeCloseTo(0.6, 12);
    expect(await recordStaleness(checkout, read.record, profileHashes(checkout))).toEqual([]);
    await appendFile(path.join(checkout, 'kb/instructions/review-gates/frontmatter/title-gate.md'), '\nA new paragraph that changes what the gate asks.\n');
    expect((await recordStaleness(checkout, read.record, profileHashes(checkout)))[0]).toMatch(
      new RegExp(`^criterion ${GATE} changed since compare run ${runId}`),
    );

    const warned = await runCli(['validate', '--kb', checkout, path.join(checkout, 'kb', 'reports', 'calibration')]);
    expect(warned.exitCode).toBe(0);
    expect(String(warned.stdout)).toMatch(
      new RegExp(`warn  stale, so no sweep chooses a route by it: criterion ${GATE} changed since compare run ${runId} .*\\[calibration-stale\\]`),
    );

    const refused = await runCli(['review', 'compare', 'keep', runId, '--kb', checkout, '--criteria', GATE]);
    expect(refused.exitCode).toBe(1);
    expect(refused.stdout).toContain(`${GATE}: not kept: the criterion changed since the run`);
  });

  test('commonplace validate fails a malformed calibration record naming the file', async () => {
    const { checkout } = await compareRunFixture();
    const dir = path.join(checkout, 'kb', 'reports', 'calibration');
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, 'frontmatter_title-gate.json'), JSON.stringify({ version: 1, criterion: GATE }));
    const validated = await runCli(['validate', '--kb', checkout, dir]);
    expect(validated.exitCode).toBe(1);
    expect(`${String(validated.stdout)}${String(validated.stderr)}`).toContain('kb/reports/calibration/frontmatter_title-gate.json');
    expect(`${String(validated.stdout)}${String(validated.stderr)}`).toContain('calibration-invalid');
  });

  test('--criteria naming a criterion the run has not is refused listing its criteria', async () => {
    const { checkout, runId } = await compareRunFixture();
    const result = await runCli(['review', 'compare', 'keep', runId, '--kb', checkout, '--criteria', 'prose/none']);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain(`--criteria: prose/none is not in compare run ${runId} (its criteria: ${GATE}, ${TYPE})`);
  });
});
