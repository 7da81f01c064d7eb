import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, test } from '@jest/globals';
import { localPath } from '../../src/kb/base-checks.js';
import type { Finding } from '../../src/kb/findings.js';
import { collectFiles, validateFiles, type ValidationReport } from '../../src/kb/validate.js';
import { DEFAULT_VALIDATION_CONFIG, parseValidationConfig } from '../../src/kb/validation-config.js';
import { copyToTemp, corpusFixture, removeTemps, repoRoot } from './helpers.js';

const fixture = path.join(repoRoot, 'test/fixtures/kb/base-checks');
/** The examples folder is a checkout: its KB is examples/kb. */
const examples = path.join(repoRoot, 'examples');
const BASE_RULES = ['link-broken', 'title-length', 'slug-length', 'type-spec-schema', 'validation-config'];
const LONG_SLUG = 'kb/notes/a-file-name-that-keeps-going-well-past-the-seventy-character-slug-limit.md';

afterAll(removeTemps);

/** A fresh copy of the fixture KB, with `validation.yaml` when given. */
async function fixtureKb(config?: string): Promise<string> {
  const root = await copyToTemp(fixture, 'commonplace-base-');
  if (config !== undefined) {
    await mkdir(path.join(root, 'kb/instructions'), { recursive: true });
    await writeFile(path.join(root, 'kb/instructions/validation.yaml'), config);
  }
  return root;
}

async function validateAll(root: string, targets: string[] = []): Promise<ValidationReport> {
  return validateFiles(await collectFiles(root, targets, root), { repoRoot: root });
}

function findingsOf(report: ValidationReport): Finding[] {
  return report.results.flatMap((result) => result.findings);
}

function brief(findings: readonly Finding[]): { file: string; line?: number; rule: string; severity: string }[] {
  return findings.map(({ file, line, rule, severity }) => (line === undefined ? { file, rule, severity } : { file, line, rule, severity }));
}

const INJECTED = [
  { file: LONG_SLUG, rule: 'slug-length', severity: 'fail' },
  { file: 'kb/notes/broken-links.md', line: 9, rule: 'link-broken', severity: 'warn' },
  { file: 'kb/notes/broken-links.md', line: 11, rule: 'link-broken', severity: 'warn' },
  { file: 'kb/notes/long-title.md', line: 6, rule: 'title-length', severity: 'fail' },
  { file: 'kb/types/broken.md', line: 4, rule: 'type-spec-schema', severity: 'fail' },
];

describe('the base checks on a KB with injected defects', () => {
  test('find exactly the broken links, the long title, the long slug and the broken type spec, with their lines and severities', async () => {
    const report = await validateAll(await fixtureKb());
    const findings = findingsOf(report);
    expect(brief(findings)).toEqual(INJECTED);
    expect(findings.find((finding) => finding.line === 9)?.message).toBe(
      'link `./missing-note.md#somewhere` does not resolve: kb/notes/missing-note.md does not exist',
    );
    expect(findings.find((finding) => finding.line === 11)?.message).toBe(
      'link `./bare/` names the directory kb/notes/bare, which has no README.md or index.md',
    );
    expect(findings.find((finding) => finding.rule === 'title-length')?.message).toBe('title has 101 characters, more than 100: shorten the `# ` heading');
    expect(findings.find((finding) => finding.rule === 'slug-length')?.message).toContain('has 71 characters, more than 70');
    expect(report.summary).toMatchObject({ failures: 3, warnings: 2, failedFiles: 3 });
  });

  test('a type spec whose schema cannot load is reported once, at its `schema:` line, however many notes use it', async () => {
    const report = await validateAll(await fixtureKb());
    const typeSpec = findingsOf(report).filter((finding) => finding.rule === 'type-spec-schema');
    expect(typeSpec).toEqual([
      {
        file: 'kb/types/broken.md',
        line: 4,
        rule: 'type-spec-schema',
        severity: 'fail',
        path: '/frontmatter/schema',
        message:
          'schema kb/types/missing.schema.yaml is unavailable: kb/types/missing.schema.yaml does not exist; 2 notes of this type are not checked against it (kb/notes/broken-type-one.md, kb/notes/broken-type-two.md)',
      },
    ]);
    for (const note of ['kb/notes/broken-type-one.md', 'kb/notes/broken-type-two.md']) {
      expect(report.results.find((result) => result.file === note)).toEqual({ file: note, kind: 'note', type: 'kb/types/broken.md', findings: [] });
    }
  });

  test('validating one note of a broken type alone still reports the type spec, as a file of the run', async () => {
    const report = await validateAll(await fixtureKb(), ['kb/notes/broken-type-one.md']);
    expect(report.results.map((result) => result.file)).toEqual(['kb/notes/broken-type-one.md', 'kb/types/broken.md']);
    expect(brief(findingsOf(report))).toEqual([{ file: 'kb/types/broken.md', line: 4, rule: 'type-spec-schema', severity: 'fail' }]);
    expect(findingsOf(report)[0]?.message).toContain('1 note of this type is not checked against it (kb/notes/broken-type-one.md)');
  });

  test('anchors, URLs of any scheme and links in code are not checked; paths with anchors, queries and escapes, and a directory with a README resolve', async () => {
    const report = await validateAll(await fixtureKb(), ['kb/notes/clean.md', 'kb/notes/topic']);
    expect(report.results.map(({ file, findings }) => ({ file, findings }))).toEqual([
      { file: 'kb/notes/clean.md', findings: [] },
      { file: 'kb/notes/topic/README.md', findings: [] },
      { file: 'kb/notes/topic/detail.md', findings: [] },
    ]);
  });

  test('a directory with an index.md resolves like one with a README.md', async () => {
    const root = await fixtureKb();
    await writeFile(path.join(root, 'kb/notes/bare/index.md'), '# Bare\n');
    const report = await validateAll(root, ['kb/notes/broken-links.md']);
    expect(brief(findingsOf(report))).toEqual([{ file: 'kb/notes/broken-links.md', line: 9, rule: 'link-broken', severity: 'warn' }]);
  });

  test('the same broken target twice is reported on each of its lines', async () => {
    const root = await fixtureKb();
    const note = '---\ntype: kb/types/plain.md\ndescription: twice\n---\n\n# Twice\n\nSee [gone](./gone.md).\n\nAnd again [gone](./gone.md).\n';
    await writeFile(path.join(root, 'kb/notes/twice.md'), note);
    const report = await validateAll(root, ['kb/notes/twice.md']);
    expect(findingsOf(report).map(({ line, path: at }) => ({ line, at }))).toEqual([
      { line: 8, at: '/links/0' },
      { line: 10, at: '/links/1' },
    ]);
  });
});

test('a link that climbs out of the checkout is broken whatever lies there', async () => {
  const root = await fixtureKb();
  await writeFile(path.join(root, 'kb/notes/climb.md'), '---\ntype: kb/types/plain.md\ndescription: climbs\n---\n\n# Climb\n\n[out](../../../elsewhere.md)\n');
  const report = await validateAll(root, ['kb/notes/climb.md']);
  expect(findingsOf(report).map(({ line, rule, message }) => ({ line, rule, message }))).toEqual([
    { line: 8, rule: 'link-broken', message: 'link `../../../elsewhere.md` points outside the repository' },
  ]);
});

describe('local link targets', () => {
  test.each(
    [
      { target: '#section', local: undefined },
      { target: 'https://example.com/a.md', local: undefined },
      { target: 'HTTP://example.com/a.md', local: undefined },
      { target: 'mailto:someone@example.com', local: undefined },
      { target: 'tel:+100', local: undefined },
      { target: '//example.com/a.md', local: undefined },
      { target: '/kb/notes/a.md', local: undefined },
      { target: './a.md', local: './a.md' },
      { target: '../notes/a.md#part', local: '../notes/a.md' },
      { target: 'a.md?x=1#y', local: 'a.md' },
      { target: 'a%20b.md', local: 'a b.md' },
      { target: 'topic/', local: 'topic/' },
    ].map((row) => ({ ...row, checks: row.local === undefined ? 'nothing' : `the path ${row.local}` })),
  )('a link to $target checks $checks', ({ target, local }) => {
    expect(localPath(target)).toBe(local);
  });
});

describe('per-KB settings in kb/instructions/validation.yaml', () => {
  test.each([
    { name: 'links: off drops the link findings', config: 'links: off\n', drop: ['link-broken'], warn: [] as string[], fail: [] as string[] },
    { name: 'links: fail makes broken links failures', config: 'links: fail\n', drop: [], warn: [], fail: ['link-broken'] },
    {
      name: 'failure and warning are accepted for fail and warn',
      config: 'links: failure\ntitle: warning\n',
      drop: [],
      warn: ['title-length'],
      fail: ['link-broken'],
    },
    { name: 'a higher title-max lets the long title pass', config: 'title-max: 101\n', drop: ['title-length'], warn: [], fail: [] },
    { name: 'a higher slug-max lets the long slug pass', config: 'slug-max: 71\n', drop: ['slug-length'], warn: [], fail: [] },
    { name: 'slug: warn lowers the slug finding to a warning', config: 'slug: warn\n', drop: [], warn: ['slug-length'], fail: [] },
    { name: 'type-spec: warn lowers the type spec finding', config: 'type-spec: warn\n', drop: [], warn: ['type-spec-schema'], fail: [] },
    { name: 'an exempt type has no slug check', config: 'slug-exempt-types: [kb/types/plain.md]\n', drop: ['slug-length'], warn: [], fail: [] },
  ])('$name', async ({ config, drop, warn, fail }) => {
    const findings = findingsOf(await validateAll(await fixtureKb(config)));
    const expected = INJECTED.filter((finding) => !drop.includes(finding.rule)).map((finding) =>
      warn.includes(finding.rule) ? { ...finding, severity: 'warn' } : fail.includes(finding.rule) ? { ...finding, severity: 'fail' } : finding,
    );
    expect(brief(findings)).toEqual(expected);
  });

  test('a lower title-max catches titles the default allows', async () => {
    const findings = findingsOf(await validateAll(await fixtureKb('title-max: 6\nlinks: off\n'), ['kb/notes/clean.md', 'kb/notes/topic/detail.md']));
    expect(brief(findings)).toEqual([]);
    const shorter = findingsOf(await validateAll(await fixtureKb('title-max: 5\nlinks: off\n'), ['kb/notes/clean.md', 'kb/notes/topic/detail.md']));
    expect(brief(shorter)).toEqual([{ file: 'kb/notes/topic/detail.md', line: 6, rule: 'title-length', severity: 'fail' }]);
  });

  test('a bad settings file is a failure on that file naming each bad key and its line, and the good keys still apply', async () => {
    const report = await validateAll(await fixtureKb('links: off\ntitle-max: many\nslug_max: 80\nslug: sometimes\n'));
    const config = report.results.find((result) => result.file === 'kb/instructions/validation.yaml');
    expect(config?.findings.map(({ line, rule, severity, message }) => ({ line, rule, severity, message }))).toEqual([
      {
        line: 2,
        rule: 'validation-config',
        severity: 'fail',
        message: 'title-max: must be a whole number of characters, found "many"; the default 100 applies',
      },
      {
        line: 3,
        rule: 'validation-config',
        severity: 'fail',
        message:
          'slug_max: unknown setting (keys are hyphenated, not underscored); the settings are links, title, title-max, slug, slug-max, slug-exempt-types, type-spec',
      },
      {
        line: 4,
        rule: 'validation-config',
        severity: 'fail',
        message: 'slug: must be one of fail, warn, off (failure and warning are accepted too), found "sometimes"; the default "fail" applies',
      },
    ]);
    // links: off held; the bad keys fell back to their defaults.
    expect(brief(findingsOf(report).filter((finding) => finding.rule !== 'validation-config'))).toEqual(
      INJECTED.filter((finding) => finding.rule !== 'link-broken'),
    );
  });

  test.each([
    { name: 'an empty file', source: '', findings: 0 },
    { name: 'a comment only', source: '# nothing set\n', findings: 0 },
    { name: 'a list', source: '- links\n', findings: 1 },
    { name: 'malformed YAML', source: 'links: [warn\n', findings: 1 },
    { name: 'type-spec: off', source: 'type-spec: off\n', findings: 1 },
    { name: 'a slug-exempt type written from the folder', source: 'slug-exempt-types: [./x.md]\n', findings: 1 },
    { name: 'a zero limit', source: 'slug-max: 0\n', findings: 1 },
  ])('$name parses to the defaults with $findings finding(s)', ({ source, findings }) => {
    const parsed = parseValidationConfig(source);
    expect(parsed.config).toEqual(DEFAULT_VALIDATION_CONFIG);
    expect(parsed.findings).toHaveLength(findings);
    for (const finding of parsed.findings)
      expect(finding).toMatchObject({ file: 'kb/instructions/validation.yaml', rule: 'validation-config', severity: 'fail' });
  });
});

describe('the example KB', () => {
  test('gives no base-check finding, and no finding at all', async () => {
    const root = await copyToTemp(examples, 'commonplace-example-');
    const report = await validateFiles(await collectFiles(root, [], root), { repoRoot: root });
    expect(report.summary.notes).toBeGreaterThan(0);
    expect(findingsOf(report).filter((finding) => BASE_RULES.includes(finding.rule))).toEqual([]);
    expect(findingsOf(report)).toEqual([]);
  });
});

describe('the shared corpus', () => {
  test('warns about 665 broken links in 203 notes, every one leaving the vendored excerpt, and nothing else', async () => {
    const root = await copyToTemp(corpusFixture, 'commonplace-corpus-');
    const findings = findingsOf(await validateAll(root)).filter((finding) => BASE_RULES.includes(finding.rule));
    expect(findings.every((finding) => finding.rule === 'link-broken' && finding.severity === 'warn')).toBe(true);
    expect(findings).toHaveLength(665);
    expect(new Set(findings.map((finding) => finding.file)).size).toBe(203);
    // Checked by hand: the excerpt ships kb/notes, kb/types, kb/agentic-systems and part of kb/instructions;
    // each broken target lies in a folder it leaves out, among instructions it leaves out, or outside kb/.
    const byFolder: Record<string, number> = {};
    for (const finding of findings) {
      const target = /does not resolve: (\S+) does not exist$/.exec(finding.message)?.[1] ?? finding.message;
      const parts = target.split('/');
      const folder = parts[0] === 'kb' ? `${parts[0]}/${parts[1]}` : '(outside kb/)';
      byFolder[folder] = (byFolder[folder] ?? 0) + 1;
    }
    expect(byFolder).toEqual({
      'kb/sources': 347,
      'kb/reference': 192,
      'kb/agent-memory-systems': 105,
      'kb/instructions': 16,
      'kb/tasks': 2,
      'kb/articles': 1,
      '(outside kb/)': 2,
    });
  });
});
