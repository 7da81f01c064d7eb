import { cp, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DEFAULT_PLAN } from '../../src/activities/analysis/prepare.js';
import { InstallError, installMethod, methodSource } from '../../src/activities/analysis/method.js';
import { treeDigest } from '../../src/activities/analysis/source.js';
import { DECLARED_CHECKS } from '../../src/analysis/checks.js';
import { loadPlan } from '../../src/analysis/load-plan.js';
import type { Plan } from '../../src/analysis/plan.js';
import { validateArtifact, type RunValuesSource } from '../../src/kb/artifact.js';
import { validateDraft } from '../../src/kb/draft.js';
import type { Finding } from '../../src/kb/findings.js';
import { parseNote } from '../../src/kb/notes.js';
import { TypeRegistry } from '../../src/kb/type-registry.js';
import { collectFiles, validateFiles } from '../../src/kb/validate.js';
import { parseVerdict } from '../../src/kb/verification.js';
import { buildProgram } from '../../src/client/main.js';
import { registerInstallMethod } from '../../src/client/analysis/analysis-method.js';
import { packageRoot } from '../../src/paths.js';
import type { FakeRule } from '../helpers/fake.js';
import { git, ROLES, scratch, type Role } from './helpers.js';

const root = packageRoot();
const exampleKb = join(root, 'examples', 'kb');
const exampleSystem = join(root, 'examples', 'systems', 'quill');
const scenarioFile = join(root, 'examples', 'scenarios', 'agentic-analysis.json');
const runId = 'AAS-2030-02-01-quill-01';

/** A scratch KB checkout of examples/kb with the method's tree copied in, committed. */
async function methodCheckout(): Promise<string> {
  const checkout = join(await scratch('commonplace-method-'), 'kb-checkout');
  await cp(exampleKb, join(checkout, 'kb'), { recursive: true });
  await cp(join(methodSource(), 'kb'), join(checkout, 'kb'), { recursive: true });
  await git(checkout, 'init', '--quiet', '--initial-branch=main');
  await git(checkout, 'add', '-A');
  await git(checkout, '-c', 'user.name=Method Test', '-c', 'user.email=method-test@example.invalid', 'commit', '--quiet', '-m', 'example KB with the method');
  return checkout;
}

/** The fake harness's templating: `{{name}}` from the prompt's lines. */
function fill(text: string, values: Readonly<Record<string, string>>): string {
  return text.replace(/\{\{([a-z][a-z0-9]*(?:-[a-z0-9]+)*)\}\}/g, (whole, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`the scenario uses {{${name}}}, which no analysis prompt has a line for`);
    return value;
  });
}

interface Scenario {
  ledger?: string;
  launches: FakeRule[];
}

const roleOf = (rule: FakeRule) => /^\^role = ([a-z-]+)\$$/.exec(rule.match ?? '')?.[1];

let checkout: string;
let plan: Plan;
let registry: TypeRegistry;
let source: string;
let scenario: Scenario;
/** Per role, its attempts' member texts with the templates filled. */
let members: Record<Role, string[]>;
let runValues: RunValuesSource;

beforeAll(async () => {
  checkout = await methodCheckout();
  plan = await loadPlan(checkout, DEFAULT_PLAN);
  registry = new TypeRegistry(checkout);
  source = `directory:sha256:${await treeDigest(exampleSystem)}`;
  scenario = JSON.parse(await readFile(scenarioFile, 'utf8')) as Scenario;
  const values = { run: runId, system: 'quill', source, capture: '/runs/capture' };
  members = Object.fromEntries(
    scenario.launches.map((rule) => {
      const role = roleOf(rule) as Role;
      return [role, rule.attempts.map((attempt) => fill(attempt.outputs?.[`${role}.md`] ?? '', { ...values, role, output: `${role}.md` }))];
    }),
  ) as Record<Role, string[]>;
  runValues = { kind: 'found', file: 'parameters.json', values: { run: runId, system: 'quill', layout: plan.layout.file } };
});

describe('the shipped method loads', () => {
  test('the plan at the default path loads with its layout: every role of the workflow, the record families, the destination', () => {
    expect(plan.name).toBe('agentic-analysis');
    expect(plan.file).toBe('kb/instructions/agentic-analysis/plan.yaml');
    expect(Object.keys(plan.roles).sort()).toEqual([...ROLES].sort());
    expect(plan.frozenSource).toBe('boundary');
    expect(plan.layout.file).toBe('kb/types/agentic-analysis/agentic-analysis.layout.yaml');
    expect(plan.layout.destination).toBe('kb/agentic-systems/{system}/{run}');
    expect(plan.layout.disposition).toEqual({ role: 'boundary', field: 'disposition' });
    for (const id of [
      'SRC-1',
      'CMP-tool-loop',
      'OBJ-notes-file',
      'RTE-notes-load',
      'CTL-shell-gate',
      'MEM-log-unread',
      'EPI-lesson-reuse',
      'REC-notes-unchecked',
      'PRF-notes',
      'SYN-bounded-loop',
    ]) {
      expect({ id, matches: new RegExp(`^(?:${plan.layout.recordId})$`, 'u').test(id) }).toEqual({ id, matches: true });
    }
    expect(plan.layout.roles.every((role) => role.identity['run'] === 'run')).toBe(true);
    expect(Object.fromEntries(plan.layout.roles.filter((role) => role.verifies.length > 0).map((role) => [role.name, role.verifies]))).toEqual({
      'report-verification': ['runtime-report', 'lens-control', 'lens-memory', 'lens-learning', 'reconciliation'],
      'profile-verification': ['memory-profile'],
      'synthesis-verification': ['synthesis'],
    });
  });

  test('every member type resolves and compiles, and the whole KB with the method validates without a finding', async () => {
    for (const role of plan.layout.roles)
      expect({ role: role.name, problem: await registry.prepare(role.type) }).toEqual({ role: role.name, problem: undefined });
    const report = await validateFiles(await collectFiles(checkout, [], checkout), { repoRoot: checkout });
    expect(report.results.flatMap((result) => result.findings.map((finding) => `${finding.file}: ${finding.message}`))).toEqual([]);
    expect(report.results.filter((result) => result.kind === 'layout').map((result) => result.file)).toEqual([
      'kb/types/agentic-analysis/agentic-analysis.layout.yaml',
    ]);
  });
});

describe('the scenario drives the method over examples/systems/quill', () => {
  test("one rule per role in the workflow's order, matching its role line; a ledger per run", () => {
    expect(scenario.launches.map(roleOf)).toEqual([...ROLES]);
    expect(scenario.ledger).toBe('{{capture}}/../fake-ledger.jsonl');
    expect(Object.fromEntries(ROLES.map((role) => [role, members[role].length]))).toEqual(
      Object.fromEntries(ROLES.map((role) => [role, ['lens-learning', 'reconciliation', 'report-verification'].includes(role) ? 2 : 1])),
    );
    for (const role of ROLES) for (const text of members[role]) expect(text).toMatch(/^_The fake harness wrote this member/m);
  });

  test('every member passes its check in its role, in the order the workflow asks, with one correction round; the assembled artifact validates whole', async () => {
    const artifact = join(await scratch('commonplace-method-artifact-'), 'artifact');
    await mkdir(artifact, { recursive: true });
    const drafts = join(artifact, '..', 'drafts');
    await mkdir(drafts);
    const accepted: Partial<Record<Role, string>> = {};
    const verdicts: Record<string, string[]> = {};

    /** The workflow's candidate check: role-scoped draft validation, the declared checks, and the frozen-source binding. */
    const check = async (role: Role, attempt: number): Promise<string[]> => {
      const text = members[role][attempt] as string;
      const draft = join(drafts, `${role}-${attempt}.md`);
      await writeFile(draft, text);
      const report = await validateDraft({ repoRoot: checkout, draft, artifact, role, layout: plan.layout, registry, runValues });
      const problems = report.findings.map((finding: Finding) => `${finding.severity} ${finding.rule}: ${finding.message}`);
      for (const name of plan.roles[role]?.checks ?? []) {
        for (const finding of DECLARED_CHECKS[name]?.({ role, text, incumbent: accepted[role], recordId: plan.layout.recordId }) ?? [])
          problems.push(`fail ${finding.rule}: ${finding.message}`);
      }
      const parsed = parseNote(Buffer.from(text), draft);
      if (role === plan.frozenSource && (parsed.kind !== 'note' || parsed.note.model.frontmatter['source'] !== source)) problems.push('fail frozen-source');
      const layoutRole = plan.layout.roles.find((entry) => entry.name === role);
      if (layoutRole !== undefined && layoutRole.verifies.length > 0 && parsed.kind === 'note') {
        const verdict = parseVerdict(parsed.note.model.body, { subjects: layoutRole.verifies, roles: [...ROLES] });
        if (verdict.ok) verdicts[`${role} ${attempt + 1}`] = [...verdict.verdict.refused];
      }
      if (problems.length === 0) {
        accepted[role] = text;
        const target = join(artifact, ...(layoutRole?.path ?? '').split('/'));
        await mkdir(join(target, '..'), { recursive: true });
        await writeFile(target, text);
      }
      return problems;
    };

    const asks: [Role, number][] = [
      ['boundary', 0],
      ['runtime-report', 0],
      ['lens-control', 0],
      ['lens-memory', 0],
      ['lens-learning', 0],
      ['reconciliation', 0],
      ['report-verification', 0],
      // The refusal's correction, reconciliation again (its input changed), the verifier again.
      ['lens-learning', 1],
      ['reconciliation', 1],
      ['report-verification', 1],
      ['memory-profile', 0],
      ['profile-verification', 0],
      ['synthesis', 0],
      ['synthesis-verification', 0],
    ];
    const outcomes: Record<string, string[]> = {};
    for (const [role, attempt] of asks) outcomes[`${role} ${attempt + 1}`] = await check(role, attempt);
    expect(outcomes).toEqual(Object.fromEntries(asks.map(([role, attempt]) => [`${role} ${attempt + 1}`, []])));
    expect(verdicts).toEqual({
      'report-verification 1': ['lens-learning'],
      'report-verification 2': [],
      'profile-verification 1': [],
      'synthesis-verification 1': [],
    });

    const whole = await validateArtifact(artifact, { repoRoot: checkout, layout: plan.layout, registry, runValues });
    expect(whole.disposition).toBe('published');
    expect(whole.members.map((member) => [member.role, member.present])).toEqual(plan.layout.roles.map((role) => [role.name, true]));
    expect(whole.findings.map((finding) => `${finding.role}: ${finding.message}`)).toEqual([]);
    // The correction is what was assembled.
    expect(await readFile(join(artifact, 'lenses', 'learning.md'), 'utf8')).toBe(members['lens-learning'][1]);
  });

  describe('checks refuse what code can see', () => {
    /** An artifact of every role's last scenario member, the `role` member replaced by `change` of it. */
    async function refusal(role: Role, change: (text: string) => string): Promise<Finding[]> {
      const dir = await scratch('commonplace-method-negative-');
      const artifact = join(dir, 'artifact');
      for (const other of ROLES) {
        const path = plan.layout.roles.find((entry) => entry.name === other)?.path ?? '';
        await mkdir(join(artifact, path, '..'), { recursive: true });
        await writeFile(join(artifact, path), members[other].at(-1) as string);
      }
      const draft = join(dir, `${role}.md`);
      const original = members[role].at(-1) as string;
      const changed = change(original);
      expect(changed).not.toBe(original);
      await writeFile(draft, changed);
      return [...(await validateDraft({ repoRoot: checkout, draft, artifact, role, layout: plan.layout, registry, runValues })).findings];
    }

    test.each<[string, Role, (text: string) => string, RegExp]>([
      [
        'a lens citing a route the runtime report does not declare, naming the ID',
        'lens-memory',
        (text) => text.replace('(RTE-notes-load, SRC-5, SRC-2)', '(RTE-notes-search, SRC-5, SRC-2)'),
        /^cites: cited record RTE-notes-search does not exist in boundary\.md, runtime-report\.md$/,
      ],
      [
        'a lens citing a sibling lens it cannot read',
        'lens-control',
        (text) => text.replace('(RTE-finish, SRC-2, SRC-3)', '(RTE-finish, MEM-context-per-task)'),
        /^cites: cites MEM-context-per-task, declared by lens-memory, which role lens-control may not cite/,
      ],
      [
        'a boundary without its source register section',
        'boundary',
        (text) => text.replace(/## Sources\n[\s\S]*?(?=## Disposition)/, ''),
        /^schema\/contains: `headings` must include "## Sources"$/,
      ],
      [
        'a boundary whose Sources section holds no SRC row',
        'boundary',
        (text) => text.replace(/\| SRC-\d+ \|/g, '| source |'),
        /^schema\/pattern: the source register: `## Sources` holds a table/,
      ],
      [
        'a partial-loop boundary that does not say what lies outside the source',
        'boundary',
        (text) => text.replace('coverage: complete-artifact', 'coverage: partial-loop'),
        /^schema\/contains: coverage partial-loop: add `## Outside the source`/,
      ],
      [
        'a boundary with a disposition outside the three',
        'boundary',
        (text) => text.replace('disposition: published', 'disposition: maybe'),
        /^disposition: `disposition` must be one of published, blocked, out-of-scope, found "maybe"$/,
      ],
      [
        'a member of another run',
        'runtime-report',
        (text) => text.replace(`run: ${runId}`, 'run: AAS-2030-02-01-quill-02'),
        /^identity: identity field `run` is "AAS-2030-02-01-quill-02", but the run's `run` is "AAS-2030-02-01-quill-01"$/,
      ],
      [
        'a boundary naming another system',
        'boundary',
        (text) => text.replace('system: quill', 'system: quill-two'),
        /^identity: identity field `system` is "quill-two", but the run's `system` is "quill"$/,
      ],
      [
        'a memory profile with a classification outside its values',
        'memory-profile',
        (text) => text.replace('selection: recency', 'selection: vibes'),
        /^schema\/enum: frontmatter `selection` must be one of "none", "everything", "recency", "retrieval", "on-request", found "vibes"$/,
      ],
      [
        'a lens without a finding of its own family',
        'lens-learning',
        (text) => text.replace(/### EPI-/g, '### '),
        /^schema\/pattern: the learning lens declares its findings as `EPI-<name>` records/,
      ],
      [
        'a verdict addressing a role it was not handed',
        'profile-verification',
        (text) => text.replace('## Blockers\n\nnone', '## Blockers\n\n- lens-memory: MEM-notes-window is wrong.'),
        /^verification\/not-handed: blocker addresses lens-memory, which this verifier was not handed/,
      ],
      [
        'a verdict without `## Checked`',
        'synthesis-verification',
        (text) => text.replace('## Checked', '## Read'),
        /^schema\/contains: a verdict says what it checked, under `## Checked`/,
      ],
    ])('%s is refused', async (_title, role, change, expected) => {
      const findings = await refusal(role, change);
      expect(findings.filter((finding) => finding.severity === 'fail').map((finding) => `${finding.rule}: ${finding.message}`)).toEqual(
        expect.arrayContaining([expect.stringMatching(expected)]),
      );
    });
  });
});

describe('install-method', () => {
  async function exampleCheckout(): Promise<string> {
    const dir = join(await scratch('commonplace-install-'), 'kb-checkout');
    await cp(exampleKb, join(dir, 'kb'), { recursive: true });
    return dir;
  }
  const methodFiles = async () =>
    (await readdir(join(methodSource(), 'kb'), { recursive: true, withFileTypes: true }))
      .filter((entry) => entry.isFile())
      .map((entry) => join(entry.parentPath, entry.name).slice(methodSource().length + 1))
      .sort();

  test('copies every file of the method into the checkout and reports it; a second install writes nothing', async () => {
    const dir = await exampleCheckout();
    const first = await installMethod(dir);
    expect(first.written).toEqual(await methodFiles());
    expect(first.written).toContain(DEFAULT_PLAN);
    expect([first.replaced, first.unchanged, first.warnings]).toEqual([[], [], []]);
    for (const file of first.written) expect(await readFile(join(dir, file), 'utf8')).toBe(await readFile(join(methodSource(), file), 'utf8'));
    await expect(loadPlan(dir, DEFAULT_PLAN)).resolves.toMatchObject({ name: 'agentic-analysis' });
    const second = await installMethod(dir);
    expect([second.written, second.replaced, second.unchanged]).toEqual([[], [], first.written]);
  });

  test('a file that differs is refused with every such path and nothing is written; --force overwrites them', async () => {
    const dir = await exampleCheckout();
    await installMethod(dir);
    const edited = ['kb/instructions/agentic-analysis/jobs/synthesis.md', 'kb/types/agentic-analysis/analysis-boundary.md'];
    for (const file of edited) await writeFile(join(dir, file), "an operator's edit\n");
    const removed = 'kb/instructions/agentic-analysis/records-contract.md';
    await rm(join(dir, removed));
    const error = await installMethod(dir).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InstallError);
    expect((error as InstallError).conflicts).toEqual(edited);
    expect((error as InstallError).message).toMatch(
      /2 files of the method already exist .* with other content; nothing was written:\n {2}kb\/instructions\/agentic-analysis\/jobs\/synthesis\.md\n {2}kb\/types\/agentic-analysis\/analysis-boundary\.md\n.*--force/s,
    );
    await expect(readFile(join(dir, removed))).rejects.toThrow(/ENOENT/);
    const forced = await installMethod(dir, { force: true });
    expect([forced.written, forced.replaced]).toEqual([[removed], edited]);
    for (const file of edited) expect(await readFile(join(dir, file), 'utf8')).toBe(await readFile(join(methodSource(), file), 'utf8'));
  });

  test('a directory without kb/ is refused; a KB without kb/types/type-spec.md gets a warning', async () => {
    const bare = await scratch('commonplace-install-bare-');
    await expect(installMethod(bare)).rejects.toThrow(/holds no kb\/ directory/);
    await mkdir(join(bare, 'kb'));
    expect((await installMethod(bare)).warnings).toEqual([expect.stringMatching(/^kb\/types\/type-spec\.md is missing/)]);
  });

  describe('commonplace analysis install-method', () => {
    /** Runs the command through the CLI's program, capturing what it prints and its exit code. */
    async function cli(args: string[]): Promise<{ stdout: string; stderr: string; exitCode: number }> {
      const program = buildProgram();
      const analysis = program.commands.find((command) => command.name() === 'analysis');
      if (analysis === undefined) throw new Error('no analysis command');
      if (!analysis.commands.some((command) => command.name() === 'install-method')) registerInstallMethod(analysis);
      const out: string[] = [];
      const err: string[] = [];
      const write = { stdout: process.stdout.write.bind(process.stdout), stderr: process.stderr.write.bind(process.stderr) };
      process.stdout.write = ((chunk: string) => out.push(String(chunk)) > 0) as typeof process.stdout.write;
      process.stderr.write = ((chunk: string) => err.push(String(chunk)) > 0) as typeof process.stderr.write;
      const before = process.exitCode;
      process.exitCode = 0;
      try {
        await program.parseAsync(['node', 'commonplace', 'analysis', 'install-method', ...args]);
      } finally {
        process.stdout.write = write.stdout;
        process.stderr.write = write.stderr;
      }
      const exitCode = Number(process.exitCode ?? 0);
      process.exitCode = before;
      return { stdout: out.join(''), stderr: err.join(''), exitCode };
    }

    test('installs into --kb, says how to commit it, and says so when it is already installed', async () => {
      const dir = await exampleCheckout();
      const first = await cli(['--kb', dir]);
      expect(first.exitCode).toBe(0);
      expect(first.stdout).toMatch(
        new RegExp(`^installed the agentic-analysis method in ${dir}\n {2}wrote {5}kb/instructions/agentic-analysis/jobs/boundary\\.md\n`),
      );
      expect(first.stdout).toMatch(/\nnext: commit it — git -C .* add kb\/instructions\/agentic-analysis kb\/types\/agentic-analysis && git -C .* commit/);
      const again = await cli(['--kb', dir]);
      expect(again).toMatchObject({ exitCode: 0, stdout: expect.stringMatching(/is already installed in .*: \d+ files identical, nothing written\n$/) });
    });

    test('an edited file is refused (exit 1, naming it) until --force', async () => {
      const dir = await exampleCheckout();
      await cli(['--kb', dir]);
      await writeFile(join(dir, 'kb/instructions/agentic-analysis/plan.yaml'), 'plan: mine\n');
      const refused = await cli(['--kb', dir]);
      expect(refused.exitCode).toBe(1);
      expect(refused.stderr).toMatch(
        /^commonplace: 1 file of the method already exists .* nothing was written:\n {2}kb\/instructions\/agentic-analysis\/plan\.yaml\n/,
      );
      const forced = await cli(['--kb', dir, '--force']);
      expect(forced.exitCode).toBe(0);
      expect(forced.stdout).toMatch(/\n {2}replaced {2}kb\/instructions\/agentic-analysis\/plan\.yaml\n/);
    });
  });
});
