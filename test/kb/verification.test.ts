import { readFile } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { describe, expect, test } from '@jest/globals';
import { parseVerdict, type VerdictParse } from '../../src/kb/verification.js';
import { repoRoot } from './helpers.js';

const ROLES = ['boundary', 'runtime-report', 'lens-report', 'report-verification', 'synthesis'];
const TWO = { subjects: ['runtime-report', 'lens-report'], roles: ROLES };
const ONE = { subjects: ['synthesis'], roles: ROLES };

const doc = (blockers: string, limits = 'none'): string => `# Verdict\n\n## Blockers\n\n${blockers}\n\n## Limits\n\n${limits}\n`;

function rules(parse: VerdictParse): string[] {
  return parse.findings.map((finding) => finding.rule);
}

describe('parseVerdict accepts', () => {
  test('`none` blockers and `none` limits accept every subject', () => {
    expect(parseVerdict(doc('none'), TWO)).toEqual({
      ok: true,
      findings: [],
      verdict: {
        subjects: ['runtime-report', 'lens-report'],
        blockers: { 'runtime-report': [], 'lens-report': [] },
        limits: [],
        refused: [],
        accepted: ['runtime-report', 'lens-report'],
      },
    });
  });

  test('with several subjects each blocker goes to the role it names, the others are accepted', () => {
    const parse = parseVerdict(
      doc('- runtime-report: the loop is not shown to read SRC-2\n- runtime-report: RT-CMP-loop has no evidence\n  continued on an indented line'),
      TWO,
    );
    expect(parse.ok && parse.verdict.blockers).toEqual({
      'runtime-report': ['the loop is not shown to read SRC-2', 'RT-CMP-loop has no evidence\ncontinued on an indented line'],
      'lens-report': [],
    });
    expect(parse.ok && parse.verdict.refused).toEqual(['runtime-report']);
    expect(parse.ok && parse.verdict.accepted).toEqual(['lens-report']);
  });

  test('addressees may be written in bold or code, and items with `*` or numbers', () => {
    const parse = parseVerdict(doc('* **lens-report**: too vague\n1. `runtime-report`: wrong file'), TWO);
    expect(parse.ok && parse.verdict.blockers).toEqual({ 'runtime-report': ['wrong file'], 'lens-report': ['too vague'] });
  });

  test('with one subject a blocker needs no addressee, and a leading `<subject>:` is dropped', () => {
    const parse = parseVerdict(doc('- Note: the conclusion overreaches\n- synthesis: cites nothing for claim 2'), ONE);
    expect(parse.ok && parse.verdict.blockers).toEqual({ synthesis: ['Note: the conclusion overreaches', 'cites nothing for claim 2'] });
  });

  test('limits are a list of their own, never addressed', () => {
    const parse = parseVerdict(doc('none', '- only two sources read\n- tests not run'), TWO);
    expect(parse.ok && parse.verdict.limits).toEqual(['only two sources read', 'tests not run']);
  });

  test('`None` in any case is none, and headings inside code fences do not count', () => {
    const body = '```\n## Blockers\n- runtime-report: fenced\n```\n\n## Blockers\n\nNone\n\n## Limits\n\nNONE\n';
    expect(parseVerdict(body, TWO).ok).toBe(true);
  });

  test('a section ends at the next level-2 heading, so later sections do not leak in', () => {
    const parse = parseVerdict('## Blockers\n\nnone\n\n## Limits\n\n- one\n\n## Notes\n\nfree prose here\n', TWO);
    expect(parse.ok && parse.verdict.limits).toEqual(['one']);
  });
});

describe('parseVerdict rejects', () => {
  test('a document without the sections, naming each missing one', () => {
    const parse = parseVerdict('# Verdict\n\nLooks good to me.\n', TWO);
    expect(parse.ok).toBe(false);
    expect(parse.findings.map((finding) => finding.message)).toEqual([
      'no `## Blockers` section: add one with `none` or a list',
      'no `## Limits` section: add one with `none` or a list',
    ]);
  });

  test('prose where a list belongs, on its line', () => {
    const parse = parseVerdict(doc('The runtime report is fine but\n- lens-report: vague'), { ...TWO, firstLine: 10 });
    expect(parse.findings).toEqual([expect.objectContaining({ rule: 'verification/not-a-list', severity: 'fail', line: 14 })]);
  });

  test('an empty section', () => {
    expect(rules(parseVerdict('## Blockers\n\n## Limits\n\nnone\n', TWO))).toEqual(['verification/empty-section']);
  });

  test('`- none` written as a list item, which would otherwise refuse a subject with the blocker "none"', () => {
    expect(rules(parseVerdict(doc('- none'), ONE))).toEqual(['verification/none-as-item']);
  });

  test('with several subjects, a blocker that names no subject', () => {
    const parse = parseVerdict(doc('- the loop is wrong'), TWO);
    expect(parse.findings).toEqual([
      expect.objectContaining({
        rule: 'verification/unaddressed',
        message: 'blocker does not start with the role it addresses (one of runtime-report, lens-report): `- <role>: …`',
      }),
    ]);
  });

  test('a blocker addressing a role the verifier was not handed', () => {
    const parse = parseVerdict(doc('- synthesis: overreaches'), TWO);
    expect(parse.findings).toEqual([
      expect.objectContaining({
        rule: 'verification/not-handed',
        message: 'blocker addresses synthesis, which this verifier was not handed (it verifies runtime-report, lens-report)',
      }),
    ]);
  });

  test('with one subject too, a blocker addressing another role of the layout', () => {
    expect(rules(parseVerdict(doc('- boundary: wrong scope'), ONE))).toEqual(['verification/not-handed']);
  });

  test('an addressed blocker that states nothing', () => {
    expect(rules(parseVerdict(doc('- lens-report:'), TWO))).toEqual(['verification/empty-blocker']);
  });

  test('a section written twice', () => {
    expect(rules(parseVerdict('## Blockers\n\nnone\n\n## Blockers\n\nnone\n\n## Limits\n\nnone\n', TWO))).toEqual(['verification/duplicate-section']);
  });

  test('every defect at once, not just the first', () => {
    const parse = parseVerdict('## Blockers\n\n- synthesis: x\n- nobody\n', { ...TWO, firstLine: 5 });
    expect(rules(parse)).toEqual(['verification/missing-section', 'verification/not-handed', 'verification/unaddressed']);
    expect(parse.findings.slice(1).map((finding) => finding.line)).toEqual([7, 8]);
  });

  test('a role that verifies nothing', () => {
    expect(rules(parseVerdict(doc('none'), { subjects: [] }))).toEqual(['verification/no-subjects']);
  });
});

describe('the verification module', () => {
  test('imports no Node built-in and no package, directly or through its imports, so workflows can import it', async () => {
    const builtins = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));
    const visited = new Set<string>();
    const offending: string[] = [];
    const visit = async (file: string): Promise<void> => {
      if (visited.has(file)) return;
      visited.add(file);
      const source = await readFile(file, 'utf8');
      const specifiers = [...source.matchAll(/^\s*(import|export)\s+(type\s+)?(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]/gm)].map((match) => ({
        typeOnly: match[2] !== undefined,
        specifier: match[3] as string,
      }));
      const dynamic = [...source.matchAll(/\b(?:import|require)\s*\(\s*['"]([^'"]+)['"]/g)].map((match) => ({
        typeOnly: false,
        specifier: match[1] as string,
      }));
      for (const { typeOnly, specifier } of [...specifiers, ...dynamic]) {
        if (typeOnly) continue; // erased at compile time
        if (!specifier.startsWith('.')) {
          offending.push(`${path.relative(repoRoot, file)} imports ${specifier}${builtins.has(specifier) ? ' (a Node built-in)' : ''}`);
          continue;
        }
        await visit(path.resolve(path.dirname(file), specifier.replace(/\.js$/, '.ts')));
      }
    };
    await visit(path.join(repoRoot, 'src/kb/verification.ts'));
    expect(offending).toEqual([]);
    expect([...visited].map((file) => path.relative(repoRoot, file))).toEqual(['src/kb/verification.ts']);
  });
});
