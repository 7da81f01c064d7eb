import { execa } from 'execa';
import { access, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fakeHarnessPath } from '../../src/worker.js';
import { fakeScenario, readLedger, scratch, type FakeAttempt } from '../helpers/fake.js';

const prompt = ['Write the boundary.', '', 'role = boundary', 'run = AAS-2030-01-01-quill-01', 'system = quill', 'source = directory:sha256:0123abcd', 'output = boundary.md', '', 'Write {output}.', ''].join('\n');

/** Plays one attempt of the fake harness in a fresh directory with the prompt above. */
async function play(attempt: FakeAttempt) {
  const dir = await scratch('commonplace-fake-');
  const { env, ledger } = await fakeScenario(dir, [{ match: '^role = boundary$', attempts: [attempt] }]);
  const result = await execa('node', [fakeHarnessPath], { cwd: dir, input: prompt, env, reject: false });
  return { dir, ledger, result };
}

describe('the fake harness fills {{name}} in its output texts from the prompt\'s name = value lines', () => {
  test('run, system and source in an output text are the values of the prompt\'s lines; other braces are left alone', async () => {
    const { dir, result } = await play({ outputs: { 'boundary.md': 'run: {{run}}\nsystem: {{system}}\nsource: "{{source}}"\nkept: {output} {{ run }}\n' } });
    expect(result.exitCode).toBe(0);
    expect(await readFile(join(dir, 'boundary.md'), 'utf8')).toBe('run: AAS-2030-01-01-quill-01\nsystem: quill\nsource: "directory:sha256:0123abcd"\nkept: {output} {{ run }}\n');
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
    expect(result.stderr).toMatch(/uses \{\{colour\}\}, but the prompt has no such `name = value` line \(it has: role, run, system, source, output\); nothing was written/);
    await expect(access(join(dir, 'boundary.md'))).rejects.toThrow(/ENOENT/);
    await expect(access(join(dir, 'other.md'))).rejects.toThrow(/ENOENT/);
    expect((await readLedger(ledger)).map((entry) => [entry.event, entry.exitCode])).toEqual([['start', undefined], ['end', 2]]);
  });
});
