import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { jobLines } from '../../src/analysis/job.js';
import { loadPlan, PlanError } from '../../src/analysis/load-plan.js';
import { formatLines } from '../../src/analysis/prompt.js';
import { fixtures, ROLES, scratch, toyPlan } from './helpers.js';

/** A copy of the toy KB whose plan (or another file) is edited by `edit`. */
async function toyWith(edits: Record<string, (text: string) => string> = {}): Promise<string> {
  const root = await scratch('commonplace-plan-');
  await cp(join(fixtures, 'toy'), root, { recursive: true });
  for (const [file, edit] of Object.entries(edits)) {
    const path = join(root, file);
    await writeFile(path, edit(await readFile(path, 'utf8')));
  }
  return root;
}

async function problemsOf(root: string): Promise<string[]> {
  try {
    await loadPlan(root, toyPlan);
  } catch (error) {
    if (error instanceof PlanError)
      return error.message
        .split('\n')
        .slice(1)
        .map((line) => line.trim());
    throw error;
  }
  throw new Error('the plan loaded');
}

const plan = (edit: (text: string) => string) => ({ [toyPlan]: edit });

describe('the plan', () => {
  test('the toy plan loads: every workflow role, reads in workflow order, a verifier handed its subjects, default outputs, criteria files', async () => {
    const loaded = await loadPlan(join(fixtures, 'toy'), toyPlan);
    expect(loaded.layout.file).toBe('kb/types/toy-analysis.layout.yaml');
    expect(loaded.frozenSource).toBe('boundary');
    expect(Object.keys(loaded.roles)).toHaveLength(11);
    // The report's verifier reads every role before it.
    expect(loaded.roles['report-verification']?.reads).toEqual(ROLES.slice(0, ROLES.indexOf('report-verification')));
    expect(loaded.roles['runtime-report']?.outputs).toEqual(['runtime-report.md']);
    expect(loaded.roles['runtime-report']?.criteriaFiles).toEqual(['kb/instructions/toy-analysis/records-contract.md', 'kb/types/toy-boundary.md']);
    expect(loaded.roles['memory-profile']?.checks).toEqual(['keeps-records']);
    expect(loaded.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  test("a role's lines are printed in a fixed order with the layout's relations and the plan's parameters", async () => {
    const loaded = await loadPlan(join(fixtures, 'toy'), toyPlan);
    const role = loaded.roles['lens-memory'];
    if (role === undefined) throw new Error('no lens-memory');
    const values = { run: 'AAS-2030-01-01-toy-01', system: 'toy', source: 'bundle:sha256:ab', capture: '/c', command: 'commonplace' };
    expect(formatLines(jobLines(loaded, role, values, { findings: true }))).toBe(
      [
        'job = lens-memory',
        'role = lens-memory',
        'run = AAS-2030-01-01-toy-01',
        'system = toy',
        'type = kb/types/toy-report.md',
        'criteria = kb/instructions/toy-analysis/records-contract.md, kb/types/toy-boundary.md',
        'input-boundary = artifact/boundary.md',
        'input-runtime-report = artifact/runtime-report.md',
        'output = lens-memory.md',
        'artifact = artifact',
        'identity = run',
        'cites = boundary, runtime-report',
        'source = bundle:sha256:ab',
        'capture = /c',
        'command = commonplace',
        'collection = kb/notes',
        'findings = findings.md',
      ].join('\n'),
    );
  });

  test.each([
    [
      'a key with an underscore',
      plan((text) => text.replace('  runtime-report:\n    instruction', '  runtime_report:\n    instruction')),
      [/plan\.yaml:15: roles\.runtime_report: `runtime_report` has an underscore: plan keys are hyphenated \(write `runtime-report`\)/],
    ],
    [
      'an underscore in a nested key',
      plan((text) => text.replace('frozen-source:', 'frozen_source:')),
      [/plan\.yaml:4: frozen_source: `frozen_source` has an underscore/],
    ],
    [
      'an unknown placeholder in the prompt section',
      { 'kb/instructions/toy-analysis/prompt-section.md': (text: string) => `${text}\nMention {colour} too.\n` },
      [/prompt-section\.md:19: unknown placeholder \{colour\}: no prompt has a line colour/],
    ],
    [
      'a placeholder some prompts lack, in an unmarked paragraph',
      { 'kb/instructions/toy-analysis/prompt-section.md': (text: string) => `${text}\nAnswer {refusal}.\n` },
      [
        /^kb\/instructions\/toy-analysis\/prompt-section\.md:19: \{refusal\} has no line in the prompt of boundary \(the first ask\), runtime-report \(the first ask\), lens-control \(the first ask\) and 8 more roles; mark its paragraph \[refusal\]/,
      ],
    ],
    [
      'a role the workflow needs missing',
      plan((text) => text.replace(/ {2}synthesis-verification:\n[\s\S]*$/, '')),
      [/plan\.yaml:\d+: roles: missing role synthesis-verification: the workflow asks boundary, runtime-report/],
    ],
    [
      'an unknown check name',
      plan((text) => text.replace('checks: [records-declared, no-open-markers]', 'checks: [records-declared, spell-check]')),
      [/plan\.yaml:20: roles\.runtime-report\.checks\.1: unknown check `spell-check` \(registered checks: records-declared, keeps-records, no-open-markers\)/],
    ],
    [
      'an unknown feedback name',
      plan((text) => text.replace('feedback: [member-type]', 'feedback: [encouragement]')),
      [/roles\.memory-profile\.feedback\.0: unknown feedback `encouragement`/],
    ],
    [
      'a role reading one written after it',
      plan((text) =>
        text.replace(
          'reads: [boundary]\n    attempts: 3\n    criteria: [records]\n    checks: [records-declared, no-open-markers]',
          'reads: [boundary, synthesis]\n    attempts: 3\n    criteria: [records]\n    checks: [records-declared, no-open-markers]',
        ),
      ),
      [/roles\.runtime-report\.reads\.1: synthesis is not written before runtime-report/],
    ],
    [
      'a lens reading a sibling lens',
      plan((text) =>
        text.replace(
          'instruction: ./jobs/lens.md\n    reads: [boundary, runtime-report]',
          'instruction: ./jobs/lens.md\n    reads: [boundary, runtime-report, lens-memory]',
        ),
      ),
      [/roles\.lens-control\.reads\.2: lens-memory is not written before lens-control/],
    ],
    [
      'an unknown key',
      plan((text) =>
        text.replace('    attempts: 2\n    criteria: [records]\n  runtime-report', '    attempts: 2\n    budget: 4\n    criteria: [records]\n  runtime-report'),
      ),
      [/plan\.yaml:\d+: roles\.boundary: unknown key budget/],
    ],
    [
      'a missing instruction file',
      plan((text) => text.replace('./jobs/boundary.md', './jobs/nowhere.md')),
      [/roles\.boundary\.instruction: kb\/instructions\/toy-analysis\/jobs\/nowhere\.md: no such file/],
    ],
    [
      'a verifier judging a role outside its group',
      { 'kb/types/toy-analysis.layout.yaml': (text: string) => text.replace('verifies: [memory-profile]', 'verifies: [memory-profile, synthesis]') },
      [/toy-analysis\.layout\.yaml: roles\.profile-verification\.verifies: profile-verification may verify only memory-profile, not synthesis/],
    ],
    [
      'a layout without a destination',
      { 'kb/types/toy-analysis.layout.yaml': (text: string) => text.replace('destination: kb/analyses/{system}/{run}\n', '') },
      [/toy-analysis\.layout\.yaml: the layout declares no destination: an analysis publishes its artifact there/],
    ],
    [
      'an unknown frozen-source role',
      plan((text) => text.replace('frozen-source: boundary', 'frozen-source: sources')),
      [/frozen-source: names unknown role sources/],
    ],
  ])('%s is refused, naming the file and line (and the key path, in the plan)', async (_label, edits, expected) => {
    const problems = await problemsOf(await toyWith(edits));
    for (const pattern of expected) expect(problems).toEqual(expect.arrayContaining([expect.stringMatching(pattern)]));
  });

  test('every problem of a plan is reported at once, one line each', async () => {
    const problems = await problemsOf(
      await toyWith(
        plan((text) => text.replace('checks: [records-declared, no-open-markers]', 'checks: [typo]').replace('feedback: [member-type]', 'feedback: [typo]')),
      ),
    );
    expect(problems).toHaveLength(2);
  });

  test('a plan outside the checkout is refused: the worktree must pin it', async () => {
    await expect(loadPlan(join(fixtures, 'toy'), join(fixtures, 'README.md'))).rejects.toThrow(/the plan must be inside the KB checkout/);
  });
});
