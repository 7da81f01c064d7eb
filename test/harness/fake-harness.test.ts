import { execa } from 'execa';
import { access, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { checkBundle, checkResultLine } from '../../src/review/result-line.js';
import { fakeHarnessPath } from '../../src/worker.js';
import { fakeScenario, readLedger, scratch, type FakeAttempt } from '../helpers/fake.js';

const promptOf = (capture = '/capture') =>
  [
    'Write the boundary.',
    '',
    'role = boundary',
    'run = AAS-2030-01-01-quill-01',
    'system = quill',
    'source = directory:sha256:0123abcd',
    'output = boundary.md',
    `capture = ${capture}`,
    '',
    'Write {output}.',
    '',
  ].join('\n');
const prompt = promptOf();

/** Plays one attempt of the fake harness in a fresh directory with the prompt above. */
async function play(attempt: FakeAttempt) {
  const dir = await scratch('commonplace-fake-');
  const { env, ledger } = await fakeScenario(dir, [{ match: '^role = boundary$', attempts: [attempt] }]);
  const result = await execa('node', [fakeHarnessPath], { cwd: dir, input: prompt, env, reject: false });
  return { dir, ledger, result };
}

describe("the fake harness fills {{name}} in its output texts from the prompt's name = value lines", () => {
  test("run, system and source in an output text are the values of the prompt's lines; other braces are left alone", async () => {
    const { dir, result } = await play({ outputs: { 'boundary.md': 'run: {{run}}\nsystem: {{system}}\nsource: "{{source}}"\nkept: {output} {{ run }}\n' } });
    expect(result.exitCode).toBe(0);
    expect(await readFile(join(dir, 'boundary.md'), 'utf8')).toBe(
      'run: AAS-2030-01-01-quill-01\nsystem: quill\nsource: "directory:sha256:0123abcd"\nkept: {output} {{ run }}\n',
    );
  });

  test('writeDeclared and writeOutside texts are filled too', async () => {
    const { dir, result } = await play({ writeDeclared: 'declared for {{run}}\n', writeOutside: { 'elsewhere.md': 'outside {{system}}\n' } });
    expect(result.exitCode).toBe(0);
    expect(await readFile(join(dir, 'boundary.md'), 'utf8')).toBe('declared for AAS-2030-01-01-quill-01\n');
    expect(await readFile(join(dir, 'elsewhere.md'), 'utf8')).toBe('outside quill\n');
  });

  test('a name the prompt has no line for writes nothing and exits 2 naming it and the lines the prompt has', async () => {
    const { dir, ledger, result } = await play({ outputs: { 'boundary.md': 'run: {{run}}\ncolour: {{colour}}\n', 'other.md': 'fine\n' } });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(
      /uses \{\{colour\}\}, but the prompt has no such `name = value` line \(it has: role, run, system, source, output, capture\); nothing was written/,
    );
    await expect(access(join(dir, 'boundary.md'))).rejects.toThrow(/ENOENT/);
    await expect(access(join(dir, 'other.md'))).rejects.toThrow(/ENOENT/);
    expect((await readLedger(ledger)).map((entry) => [entry.event, entry.exitCode])).toEqual([
      ['start', undefined],
      ['end', 2],
    ]);
  });

  test("a scenario's ledger path is templated too, so {{capture}}/../ keeps one ledger per analysis run", async () => {
    const dir = await scratch('commonplace-fake-');
    const scenario = join(dir, 'scenario.json');
    await writeFile(
      scenario,
      JSON.stringify({
        ledger: '{{capture}}/../fake-ledger.jsonl',
        launches: [{ match: '^role = boundary$', attempts: [{ outputs: { 'boundary.md': 'first\n' } }, { outputs: { 'boundary.md': 'second\n' } }] }],
      }),
    );
    const texts: Record<string, string[]> = {};
    for (const run of ['one', 'two']) {
      const capture = join(dir, run, 'capture');
      await mkdir(capture, { recursive: true });
      texts[run] = [];
      for (let launch = 0; launch < 2; launch += 1) {
        const cwd = join(dir, run, `launch-${launch}`);
        await mkdir(cwd);
        const result = await execa('node', [fakeHarnessPath], { cwd, input: promptOf(capture), env: { COMMONPLACE_FAKE_SCENARIO: scenario }, reject: false });
        expect(result.exitCode).toBe(0);
        texts[run]?.push(await readFile(join(cwd, 'boundary.md'), 'utf8'));
      }
    }
    // Each run counts its own attempts in its own ledger.
    expect(texts).toEqual({ one: ['first\n', 'second\n'], two: ['first\n', 'second\n'] });
    expect((await readLedger(join(dir, 'one', 'fake-ledger.jsonl'))).filter((entry) => entry.event === 'start')).toHaveLength(2);
  });
});

describe('the fake harness without a scenario', () => {
  const reviewPromptOf = (criteria: string[], resultLine: string, grouping = 'pair') =>
    [
      'Review the note against the criterion below.',
      `Write your review to review.md. Its last line must be exactly one result line: ${resultLine}.`,
      '',
      'job = gate-review',
      `grouping = ${grouping}`,
      'note = kb/notes/a.md',
      'note-input = inputs/note.md',
      ...criteria.flatMap((id) => [`criterion = ${id}`, `criterion-input = inputs/criteria/${id}.md`]),
      'output = review.md',
      '',
    ].join('\n');

  /** Runs the fake with no scenario in its environment, in a fresh directory. */
  async function playBare(input: string) {
    const dir = await scratch('commonplace-fake-');
    const env = { ...process.env };
    delete env.COMMONPLACE_FAKE_SCENARIO;
    delete env.COMMONPLACE_FAKE_LEDGER;
    const result = await execa('node', [fakeHarnessPath], { cwd: dir, input, env, extendEnv: false, reject: false });
    return { dir, result };
  }

  test('a gate review prompt gets a plain passing review that the result-line check accepts', async () => {
    const { dir, result } = await playBare(reviewPromptOf(['frontmatter/title-as-claim'], '`Result: pass`, `Result: warn` or `Result: fail`'));
    expect(result.exitCode).toBe(0);
    const review = await readFile(join(dir, 'review.md'), 'utf8');
    expect(review.trimEnd().split('\n').at(-1)).toBe('Result: pass');
    expect(checkResultLine(review)).toMatchObject({ ok: true, outcome: 'pass' });
  });

  test("a report criterion's review prompt gets a review ending Result: report", async () => {
    const { dir, result } = await playBare(reviewPromptOf(['kb/instructions/critique-note.md'], '`Result: report`'));
    expect(result.exitCode).toBe(0);
    expect(checkResultLine(await readFile(join(dir, 'review.md'), 'utf8'), { report: true })).toMatchObject({ ok: true, outcome: 'report' });
  });

  test('a bundle prompt gets one passing section per criterion, each accepted by the bundle check', async () => {
    const gates = ['frontmatter/title-as-claim', 'frontmatter/description-discrimination'];
    const { dir, result } = await playBare(reviewPromptOf(gates, '`Result: pass`, `Result: warn` or `Result: fail`', 'bundle'));
    expect(result.exitCode).toBe(0);
    const check = checkBundle(await readFile(join(dir, 'review.md'), 'utf8'), gates);
    expect(check.accepted.map((section) => [section.gate, section.outcome])).toEqual(gates.map((gate) => [gate, 'pass']));
    expect(check.rejected).toEqual([]);
    expect(check.missing).toEqual([]);
  });

  test('any other job still gets the text "fake output" in its declared outputs', async () => {
    const { dir, result } = await playBare(prompt);
    expect(result.exitCode).toBe(0);
    expect(await readFile(join(dir, 'boundary.md'), 'utf8')).toBe('fake output\n');
  });
});
